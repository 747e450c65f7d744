import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Foundation
package import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The presenter without a desktop: a notification is a line in the app's log (what
/// `bgctl logs ID` shows) and a notice in the daemon's log. A person reads it there, lists it
/// with `bgctl notifications ID` and acts on it with `bgctl notifications ID activate`.
package struct LogNotificationPresenter: NotificationPresenter {
    package let logger: Logger
    /// The app's log file, written to directly: the app may not be running.
    package let logPath: @Sendable (BundleID) -> String
    private let counter = Counter()

    package var name: String { "log" }

    package init(logger: Logger, logPath: @escaping @Sendable (BundleID) -> String) {
        self.logger = logger
        self.logPath = logPath
    }

    package func present(bundle: BundleID, appName: String, notification: DeliveredNotification)
        async throws(NotificationPresenterError) -> String
    {
        let handle = "log:\(counter.next())"
        let content = notification.request.content
        var text = content.heading
        if !content.body.isEmpty { text += (text.isEmpty ? "" : ": ") + content.body }
        // One line whatever the app wrote: its newlines must not forge other log lines.
        let line = "notification \(notification.request.identifier) (\(handle)): \(text)"
            .replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\r", with: " ")
        var appLogger = logger
        appLogger[metadataKey: "bundle"] = "\(bundle)"
        appLogger.notice("\(appName): \(line)")
        let path = logPath(bundle)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw NotificationPresenterError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array("[backgrounderd] \(line)\n".utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw NotificationPresenterError(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return handle
    }

    package func withdraw(_ handle: String) async {
        logger.debug("notification \(handle) withdrawn")
    }

    /// Handles unique within this run.
    private final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func next() -> Int { value.add(1, ordering: .relaxed).newValue }
    }
}
