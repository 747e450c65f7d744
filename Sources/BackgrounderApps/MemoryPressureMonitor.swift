import BackgrounderAppCore
import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem
import Foundation
package import Logging
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches memory pressure with two PSI triggers (/proc/pressure/memory), as low-memory-monitor
/// and Android's lmkd do: the kernel wakes us when some task stalled on memory for ``warnStall``
/// within the window, and the app manager warns the running apps (`MEMORY_WARNING`); when every
/// task stalled for ``stall``, it ends apps as jetsam does. No polling: the thread sleeps in
/// `poll(2)` until the kernel says so.
package final class MemoryPressureMonitor: Service, Sendable {
    private let apps: AppManager
    private let logger: Logger
    private let wakeup: WakeupPipe
    private let armed = Atomic<Bool>(false)

    /// Time within the window during which every task was stalled on memory (the kernel's
    /// "full" line): a real shortage, not a compile evicting page cache.
    package static let stall: Duration = .milliseconds(100)
    /// Time within the window during which some task was stalled on memory (the "some"
    /// line): reclaim is slowing someone down, the moment to ask apps to free what they can.
    package static let warnStall: Duration = .milliseconds(150)
    /// The window. The kernel takes 500 ms to 10 s, but refuses windows that are not a
    /// multiple of 2 s from processes without CAP_SYS_RESOURCE (and, seen here, even from
    /// root in a VM), so 2 s it is.
    package static let window: Duration = .seconds(2)

    package init(apps: AppManager, logger: Logger) throws {
        self.apps = apps
        self.logger = logger
        wakeup = try WakeupPipe()
    }

    /// Whether the PSI trigger is armed.
    package var isArmed: Bool { armed.load(ordering: .relaxed) }

    /// Opens a trigger on /proc/pressure/memory, or says why not.
    private func trigger(_ line: String) -> Int32? {
        let descriptor = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0, line.withCString({ write(descriptor, $0, strlen($0) + 1) }) >= 0 else {
            logger.warning(
                "memory pressure is not watched: /proc/pressure/memory trigger '\(line)' failed (\(String(cString: strerror(errno))))"
            )
            if descriptor >= 0 { close(descriptor) }
            return nil
        }
        return descriptor
    }

    package func run() async throws {
        let kill = "full \(Self.stall.wholeMicroseconds) \(Self.window.wholeMicroseconds)"
        let warn = "some \(Self.warnStall.wholeMicroseconds) \(Self.window.wholeMicroseconds)"
        guard let killing = trigger(kill) else {
            try await gracefulShutdown()
            return
        }
        // Without the warning trigger, jetsam still warns the running apps first.
        let warning = trigger(warn)
        armed.store(true, ordering: .relaxed)
        logger.info("watching memory pressure (PSI triggers: \(warning != nil ? warn + "; " : "")\(kill))")
        await wakeup.runThreadUntilShutdown(named: "memory-pressure") { [self] in
            while let fired = waitForPressure(killing, warning) {
                let apps = self.apps
                let pressure = MemoryPressure(critical: false, warning: fired == warning)
                Task { await apps.memoryPressure(pressure) }
            }
            close(killing)
            if let warning { close(warning) }
        }
    }

    /// Sleeps until a trigger fires (POLLPRI); returns its descriptor, or `nil` at shutdown or
    /// when the jetsam trigger fails. A warning trigger that fails is dropped.
    private func waitForPressure(_ killing: Int32, _ warning: Int32?) -> Int32? {
        var descriptors = [
            pollfd(fd: wakeup.readDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: killing, events: Int16(POLLPRI), revents: 0),
            pollfd(fd: warning ?? -1, events: Int16(POLLPRI), revents: 0),
        ]
        while true {
            let ready = retryingInterrupted { poll(&descriptors, 3, -1) }
            guard ready > 0, descriptors[0].revents == 0 else { return nil }
            if descriptors[1].revents & Int16(POLLERR) != 0 { return nil }
            // The stronger signal first: with both, it is a shortage.
            if descriptors[1].revents & Int16(POLLPRI) != 0 { return killing }
            if descriptors[2].revents & Int16(POLLPRI) != 0 { return warning }
            if descriptors[2].revents & Int16(POLLERR) != 0 { descriptors[2].fd = -1 }
        }
    }
}
