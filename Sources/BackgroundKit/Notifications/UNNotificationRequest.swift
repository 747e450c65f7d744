import BackgrounderCore
import BackgrounderProtocol
public import Foundation

/// A notification to deliver, as `UNNotificationRequest`.
public final class UNNotificationRequest {
    /// The app's name for it; adding another with the same identifier replaces it.
    public let identifier: String
    /// What it says.
    public let content: UNNotificationContent
    /// When; `nil` for at once.
    public let trigger: UNNotificationTrigger?

    /// Creates a request. The content is copied, as on iOS.
    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = UNNotificationContent(content.storage)
        self.trigger = trigger
    }

    init(_ request: NotificationRequest) {
        identifier = request.identifier
        content = UNNotificationContent(request.content)
        trigger = UNNotificationTrigger.make(request.trigger)
    }

    /// As the daemon stores it.
    var wire: NotificationRequest {
        NotificationRequest(identifier: identifier, content: content.storage, trigger: trigger?.storage)
    }
}

/// A delivered notification, as `UNNotification`.
public final class UNNotification {
    /// When it was delivered.
    public let date: Date
    /// Its request.
    public let request: UNNotificationRequest

    init(_ delivered: DeliveredNotification) {
        date = Date(timeIntervalSince1970: delivered.date)
        request = UNNotificationRequest(delivered.request)
    }
}

/// What the person did with a notification, as `UNNotificationResponse`.
public final class UNNotificationResponse {
    /// The notification.
    public let notification: UNNotification
    /// ``UNNotificationDefaultActionIdentifier`` when they opened it,
    /// ``UNNotificationDismissActionIdentifier`` when they dismissed it, or an action's key.
    public let actionIdentifier: String

    init(_ response: NotificationResponse) {
        notification = UNNotification(response.notification)
        actionIdentifier = response.actionIdentifier
    }
}

/// The person opened the notification.
public let UNNotificationDefaultActionIdentifier = NotificationAction.default
/// The person dismissed the notification.
public let UNNotificationDismissActionIdentifier = NotificationAction.dismiss

/// What an app asks for in `requestAuthorization(options:)`, as `UNAuthorizationOptions`.
public struct UNAuthorizationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// A badge on the app.
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    /// A sound.
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    /// Showing the notification.
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)

    var names: [String] {
        [(Self.alert, "alert"), (Self.sound, "sound"), (Self.badge, "badge")].filter { contains($0.0) }.map(\.1)
    }
}

/// How a notification is shown to an app in front, as `UNNotificationPresentationOptions`.
public struct UNNotificationPresentationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// A badge.
    public static let badge = UNNotificationPresentationOptions(rawValue: 1 << 0)
    /// Its sound.
    public static let sound = UNNotificationPresentationOptions(rawValue: 1 << 1)
    /// In the notification list.
    public static let list = UNNotificationPresentationOptions(rawValue: 1 << 3)
    /// As a banner.
    public static let banner = UNNotificationPresentationOptions(rawValue: 1 << 4)

    var names: [String] {
        [(Self.banner, "banner"), (Self.list, "list"), (Self.sound, "sound"), (Self.badge, "badge")]
            .filter { contains($0.0) }.map(\.1)
    }
}
