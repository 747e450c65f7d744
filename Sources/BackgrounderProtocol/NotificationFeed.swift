public import BackgrounderCore

/// `NOTIFICATIONS_FOLLOW`: a person follows notifications as they are delivered (`bgctl
/// notifications --follow`), the terminal's notification centre: after the `OK`, the daemon
/// sends a `NOTIFICATION_DELIVERED` on this connection for each one, until it closes.
public struct NotificationsFollow: Sendable, Hashable, Codable {
    /// Only this app's; every app's when absent.
    public var bundle: BundleID?

    /// Creates a request.
    public init(bundle: BundleID? = nil) {
        self.bundle = bundle
    }
}

/// `NOTIFICATION_DELIVERED`: a notification was delivered (sent to followers).
public struct DeliveredNotice: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// The app's name, as a person knows it.
    public var app: String
    /// The notification.
    public var notification: DeliveredNotification

    /// Creates a notice.
    public init(bundle: BundleID, app: String, notification: DeliveredNotification) {
        self.bundle = bundle
        self.app = app
        self.notification = notification
    }
}
