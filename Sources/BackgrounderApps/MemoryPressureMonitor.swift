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

/// Watches memory pressure with a PSI trigger (/proc/pressure/memory): the kernel wakes us
/// when tasks stalled on memory for `stall` within `window`, and the app manager ends apps
/// as jetsam does. No polling: the thread sleeps in `poll(2)` until the kernel says so.
package final class MemoryPressureMonitor: Service, Sendable {
    private let apps: AppManager
    private let logger: Logger
    private let wakeup: WakeupPipe
    private let armed = Atomic<Bool>(false)

    /// Time within the window during which every task was stalled on memory (the kernel's
    /// "full" line): a real shortage, not a compile evicting page cache.
    package static let stall: Duration = .milliseconds(100)
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

    package func run() async throws {
        let descriptor = open("/proc/pressure/memory", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        let trigger = "full \(Self.stall.wholeMicroseconds) \(Self.window.wholeMicroseconds)"
        guard descriptor >= 0, trigger.withCString({ write(descriptor, $0, strlen($0) + 1) }) >= 0 else {
            logger.warning(
                "memory pressure is not watched: /proc/pressure/memory trigger failed (\(String(cString: strerror(errno))))"
            )
            if descriptor >= 0 { close(descriptor) }
            try await gracefulShutdown()
            return
        }
        armed.store(true, ordering: .relaxed)
        logger.info("watching memory pressure (PSI trigger: \(trigger))")
        await wakeup.runThreadUntilShutdown(named: "memory-pressure") { [self] in
            while waitForPressure(descriptor) {
                let apps = self.apps
                Task { await apps.relieveMemoryPressure(critical: false) }
            }
            close(descriptor)
        }
    }

    /// Sleeps until the trigger fires (POLLPRI) or shutdown.
    private func waitForPressure(_ descriptor: Int32) -> Bool {
        var descriptors = [
            pollfd(fd: wakeup.readDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: descriptor, events: Int16(POLLPRI), revents: 0),
        ]
        let ready = retryingInterrupted { poll(&descriptors, 2, -1) }
        guard ready > 0, descriptors[0].revents == 0 else { return false }
        if descriptors[1].revents & Int16(POLLERR) != 0 { return false }
        return descriptors[1].revents & Int16(POLLPRI) != 0
    }
}
