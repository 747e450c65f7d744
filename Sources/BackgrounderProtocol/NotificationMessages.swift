public import BackgrounderCore

/// `NOTIFICATION_AUTHORIZATION` from an app (`requestAuthorization(options:)`): answered with
/// what a person granted; the daemon never grants by itself, it logs that the app asked.
public struct NotificationAuthorizationRequest: Sendable, Hashable, Codable {
    /// What the app asks for (`alert`, `sound`, `badge`), for the log.
    public var options: [String]

    /// Creates a request.
    public init(options: [String] = []) {
        self.options = options
    }
}

/// `NOTIFICATION_AUTHORIZATION` reply.
public struct NotificationAuthorizationStatus: Sendable, Hashable, Codable {
    /// The app's grant.
    public var status: NotificationAuthorization

    /// Creates a status.
    public init(status: NotificationAuthorization) {
        self.status = status
    }
}

/// `NOTIFICATION_ADD` from an app: a ``NotificationRequest``'s fields (`identifier`,
/// `content`, `trigger`) on the message itself.
public typealias NotificationAddRequest = NotificationRequest

/// Which of an app's notifications a removal or listing is about.
public enum NotificationListKind: String, Sendable, Hashable, Codable {
    /// Requests waiting for their trigger.
    case pending
    /// Notifications delivered and not removed.
    case delivered
}

/// `NOTIFICATION_REMOVE` from an app: some or all of its pending requests or delivered
/// notifications (`removePendingNotificationRequests(withIdentifiers:)` and the like).
public struct NotificationRemoval: Sendable, Hashable, Codable {
    /// Pending or delivered.
    public var list: NotificationListKind
    /// The requests' identifiers; absent for all of them.
    public var identifiers: [String]?

    /// Creates a removal.
    public init(list: NotificationListKind, identifiers: [String]? = nil) {
        self.list = list
        self.identifiers = identifiers
    }
}

/// `NOTIFICATION_LIST` from an app: its pending requests or delivered notifications.
public struct NotificationListQuery: Sendable, Hashable, Codable {
    /// Which.
    public var list: NotificationListKind

    /// Creates a query.
    public init(list: NotificationListKind) {
        self.list = list
    }
}

/// A pending request as the daemon keeps it.
public struct PendingNotification: Sendable, Hashable, Codable {
    /// The request.
    public var request: NotificationRequest
    /// When it fires next, in seconds since 1970; absent for a location trigger.
    public var nextFire: Double?

    /// Creates an entry.
    public init(request: NotificationRequest, nextFire: Double?) {
        self.request = request
        self.nextFire = nextFire
    }
}

/// A delivered notification, as `UNNotification`.
public struct DeliveredNotification: Sendable, Hashable, Codable {
    /// The request it was delivered for.
    public var request: NotificationRequest
    /// When, in seconds since 1970.
    public var date: Double
    /// The presenter's handle for it (a desktop notification's number, `log:…` without a
    /// desktop); absent while it is being posted, or when it was not shown.
    public var presenter: String?

    /// Creates an entry.
    public init(request: NotificationRequest, date: Double, presenter: String? = nil) {
        self.request = request
        self.date = date
        self.presenter = presenter
    }
}

/// `NOTIFICATIONS`: the reply to `NOTIFICATION_LIST` (one of the lists filled) and to a
/// person's `NOTIFICATIONS` (both).
public struct NotificationsList: Sendable, Hashable, Codable {
    /// The app.
    public var bundle: BundleID
    /// Its grant.
    public var authorization: NotificationAuthorization
    /// Pending requests, soonest first.
    public var pending: [PendingNotification]
    /// Delivered notifications, oldest first.
    public var delivered: [DeliveredNotification]

    /// Creates a list.
    public init(
        bundle: BundleID, authorization: NotificationAuthorization, pending: [PendingNotification],
        delivered: [DeliveredNotification]
    ) {
        self.bundle = bundle
        self.authorization = authorization
        self.pending = pending
        self.delivered = delivered
    }
}

/// `NOTIFICATIONS` from a person (`bgctl notifications ID`).
public struct NotificationsQuery: Sendable, Hashable, Codable {
    /// The app.
    public var bundle: BundleID

    /// Creates a query.
    public init(bundle: BundleID) {
        self.bundle = bundle
    }
}

/// What a person did with a notification, as `UNNotificationResponse.actionIdentifier`.
public enum NotificationAction {
    /// The person opened it (`UNNotificationDefaultActionIdentifier`).
    public static let `default` = "com.apple.UNNotificationDefaultActionIdentifier"
    /// The person dismissed it (`UNNotificationDismissActionIdentifier`).
    public static let dismiss = "com.apple.UNNotificationDismissActionIdentifier"
}

/// `NOTIFICATION_ACTIVATE` from a person (`bgctl notifications ID activate REQUEST`) or the
/// desktop's notification server: opens the app with the response.
public struct NotificationActivation: Sendable, Hashable, Codable {
    /// The app.
    public var bundle: BundleID
    /// The delivered notification's request identifier.
    public var request: String
    /// The action; absent for the default (opening it).
    public var action: String?

    /// Creates an activation.
    public init(bundle: BundleID, request: String, action: String? = nil) {
        self.bundle = bundle
        self.request = request
        self.action = action
    }
}

/// `NOTIFICATION_WILL_PRESENT` to an app in front (`userNotificationCenter(_:willPresent:)`):
/// it answers with `NOTIFICATION_PRESENTATION` within ``NotificationPresentation/answerSeconds``,
/// or the notification is not shown, as iOS does for an app in front.
public struct NotificationWillPresent: Sendable, Hashable, Codable {
    /// The notification.
    public var notification: DeliveredNotification

    /// Creates a notice.
    public init(notification: DeliveredNotification) {
        self.notification = notification
    }
}

/// `NOTIFICATION_PRESENTATION` from an app: how to show a notification it was asked about
/// (`UNNotificationPresentationOptions`: `banner`, `list`, `sound`, `badge`; none to hide it).
public struct NotificationPresentation: Sendable, Hashable, Codable {
    /// How long the daemon waits for an answer.
    public static let answerSeconds = 1.0
    /// The options every answer may name.
    public static let knownOptions: Set<String> = ["banner", "list", "sound", "badge", "alert"]

    /// The request identifier it is about.
    public var request: String
    /// The options; empty not to show it.
    public var options: [String]

    /// Creates an answer.
    public init(request: String, options: [String]) {
        self.request = request
        self.options = options
    }

    /// Whether the notification is shown at all (`badge` alone shows nothing).
    public var shows: Bool { !Set(options).isDisjoint(with: ["banner", "list", "sound", "alert"]) }
}

/// `NOTIFICATION_RESPONSE` to an app (`userNotificationCenter(_:didReceive:)`).
public struct NotificationResponse: Sendable, Hashable, Codable {
    /// The notification acted on.
    public var notification: DeliveredNotification
    /// The action (``NotificationAction``).
    public var actionIdentifier: String

    /// Creates a response.
    public init(notification: DeliveredNotification, actionIdentifier: String) {
        self.notification = notification
        self.actionIdentifier = actionIdentifier
    }
}
