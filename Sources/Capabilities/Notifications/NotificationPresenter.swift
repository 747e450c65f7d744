import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// Shows an app's notifications to the person: a desktop notification server, or the log
/// where there is no desktop. The ``NotificationCapability`` decides when; a presenter only
/// shows and takes back. A person acting on a shown notification comes back through
/// ``NotificationCapability/activate(_:in:)``.
package protocol NotificationPresenter: Sendable {
    /// A name for logs and `bgctl status`.
    var name: String { get }

    /// Shows a notification.
    /// - Parameters:
    ///   - bundle: The app's identifier.
    ///   - appName: Its `CFBundleName`, as the person knows it.
    ///   - notification: What to show.
    /// - Returns: The presenter's handle for it, for ``withdraw(_:)``.
    /// - Throws: ``NotificationPresenterError`` saying why it could not be shown.
    func present(bundle: BundleID, appName: String, notification: DeliveredNotification)
        async throws(NotificationPresenterError) -> String

    /// Takes a shown notification back (the app removed it, or the person acted on it).
    func withdraw(_ handle: String) async
}

/// Why a presenter could not show a notification.
package struct NotificationPresenterError: Error, Sendable, CustomStringConvertible {
    /// For a person to read.
    package var description: String
}
