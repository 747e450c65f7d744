import Foundation
package import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Rescans the bundle directories when something in them changes (inotify), so installing,
/// removing or editing a bundle needs no `bgctl reload`.
///
/// It watches each bundles directory and each `*.bundle` directory in it, waits for a quiet
/// moment (an installer copies several files), then reloads once. The thread sleeps in
/// `poll(2)` with no timeout: no wakeups while nothing changes.
package final class BundleWatcher: Service, Sendable {
    private let directories: [String]
    private let registry: BundleRegistry
    private let logger: Logger
    private let wakeup: WakeupPipe

    /// How long the directories must stay quiet before a rescan.
    package static let settleTime: Duration = .milliseconds(300)

    package init(directories: [String], registry: BundleRegistry, logger: Logger) throws {
        self.directories = directories
        self.registry = registry
        self.logger = logger
        wakeup = try WakeupPipe()
    }

    /// The longest wait between two tries at an inotify instance.
    package static let maximumRetry: Duration = .seconds(30)

    package func run() async throws {
        guard let inotify = await makeInstance() else {
            // A service that returns ends the daemon: without inotify it waits for shutdown.
            try await gracefulShutdown()
            return
        }
        await wakeup.runThreadUntilShutdown(named: "bundle-watcher") { [self] in
            watch(inotify)
            close(inotify)
        }
    }

    /// An inotify instance, tried again (1 s, doubling to 30 s) while the uid's instances
    /// are used up (EMFILE: `fs.inotify.max_user_instances`, 128 by default, which editors and
    /// file managers often exhaust) or the system is short; a timer only while that lasts.
    /// Once it comes, the directories are read again for what changed meanwhile.
    /// - Returns: The instance, or `nil` when there will be none (another error, or shutdown).
    private func makeInstance() async -> Int32? {
        var retry: Duration = .seconds(1)
        while true {
            let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            if inotify >= 0 {
                if retry > .seconds(1) {
                    let result = await registry.reload()
                    logger.notice(
                        "inotify is available again: watching the bundle directories (\(result.loaded) loaded, \(result.refused) refused)"
                    )
                }
                return inotify
            }
            let code = errno
            let reason = String(cString: strerror(code))
            guard code == EMFILE || code == ENFILE || code == ENOMEM else {
                logger.warning("inotify is unavailable (\(reason)); use `bgctl reload` after changing bundles")
                return nil
            }
            if retry == .seconds(1) {
                logger.warning(
                    "inotify is unavailable (\(reason)); trying again, up to every 30 s; until then use `bgctl reload` after changing bundles"
                )
            }
            do {
                try await cancelWhenGracefulShutdown { [retry] in try await BootSleep.sleep(for: retry) }
            } catch {
                return nil
            }
            retry = min(retry * 2, Self.maximumRetry)
        }
    }

    private static let mask = UInt32(
        IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF
    )

    /// Adds a watch for every bundles directory and every bundle in it.
    private func addWatches(_ inotify: Int32) {
        for directory in directories {
            _ = inotify_add_watch(inotify, directory, Self.mask)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for entry in entries where entry.hasSuffix(".bundle") {
                // Re-adding an existing watch only updates its mask.
                _ = inotify_add_watch(inotify, directory + "/" + entry, Self.mask)
            }
        }
    }

    private func drain(_ inotify: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while read(inotify, &buffer, buffer.count) > 0 {}
    }

    private func watch(_ inotify: Int32) {
        addWatches(inotify)
        while wakeup.wait(for: inotify, timeout: nil) {
            drain(inotify)
            // Let a copy or an unpack finish before looking.
            while wakeup.wait(for: inotify, timeout: Self.settleTime) {
                drain(inotify)
            }
            if wakeup.isWoken { return }
            addWatches(inotify)
            let registry = self.registry
            let logger = self.logger
            Task {
                let result = await registry.reload()
                logger.info(
                    "bundle directories changed: \(result.loaded) loaded, \(result.refused) refused, added \(result.added), removed \(result.removed)"
                )
            }
        }
    }
}
