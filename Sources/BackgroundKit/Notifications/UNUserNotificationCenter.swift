import BackgrounderProtocol
import Foundation

/// What an app hears about its notifications, as `UNUserNotificationCenterDelegate`. Called on
/// the main actor; both methods have defaults (not shown in front; nothing on a response).
@MainActor
public protocol UNUserNotificationCenterDelegate: AnyObject {
    /// A notification is due while the app is in front: how to show it. Answer within a
    /// second, or it is not shown. The default shows nothing, as on iOS.
    func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions

    /// The person acted on a notification (opened or dismissed it); the app was opened, and
    /// launched if need be, to hear it.
    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async
}

extension UNUserNotificationCenterDelegate {
    public func userNotificationCenter(
        _ center: UNUserNotificationCenter, willPresent notification: UNNotification
    ) async -> UNNotificationPresentationOptions {
        []
    }

    public func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse)
        async
    {}
}

/// An app's local notifications, as `UNUserNotificationCenter`: the daemon keeps the requests
/// (they outlive the app's process) and delivers them at their time whether the app runs or
/// not. A person allows them with `bgctl authorize ID notifications`.
@MainActor
public final class UNUserNotificationCenter {
    private static let shared = UNUserNotificationCenter()

    /// The app's center.
    public static func current() -> UNUserNotificationCenter { shared }

    /// Hears `willPresent` and responses. Responses that arrive before it is set (the launch
    /// a response caused) wait for it.
    public weak var delegate: (any UNUserNotificationCenterDelegate)? {
        didSet { deliverEarlyResponses() }
    }

    private var early: [NotificationResponse] = []

    private init() {}

    /// Asks whether the app may post notifications. A person decides
    /// (`bgctl authorize ID notifications granted|denied`); until then the answer is `false`
    /// and the daemon's log says the app asked.
    /// - Returns: Whether notifications are granted.
    /// - Throws: ``ProtocolError`` when the daemon cannot be asked.
    public func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        let reply = try send(
            .requestNotificationAuthorization(NotificationAuthorizationRequest(options: options.names)))
        guard case .notificationAuthorization(let status) = reply else {
            throw ProtocolError(.failed, "unexpected reply to NOTIFICATION_AUTHORIZATION")
        }
        return status.status == .granted
    }

    /// Adds a request, replacing a pending one with the same identifier.
    /// - Throws: ``ProtocolError``: `notAuthorized` without a grant, `badRequest` naming the
    ///   field at fault, `limitReached` with 64 requests pending.
    public func add(_ request: UNNotificationRequest) async throws {
        _ = try send(.addNotification(request.wire))
    }

    /// The requests waiting for their trigger.
    public func pendingNotificationRequests() async -> [UNNotificationRequest] {
        guard case .notifications(let list)? = try? send(.listNotifications(NotificationListQuery(list: .pending)))
        else { return [] }
        return list.pending.map { UNNotificationRequest($0.request) }
    }

    /// Removes pending requests.
    public func removePendingNotificationRequests(withIdentifiers identifiers: [String]) {
        _ = try? send(.removeNotifications(NotificationRemoval(list: .pending, identifiers: identifiers)))
    }

    /// Removes every pending request.
    public func removeAllPendingNotificationRequests() {
        _ = try? send(.removeNotifications(NotificationRemoval(list: .pending)))
    }

    /// The notifications delivered and still shown.
    public func deliveredNotifications() async -> [UNNotification] {
        guard
            case .notifications(let list)? = try? send(.listNotifications(NotificationListQuery(list: .delivered)))
        else { return [] }
        return list.delivered.map(UNNotification.init)
    }

    /// Removes delivered notifications (and takes them off the desktop).
    public func removeDeliveredNotifications(withIdentifiers identifiers: [String]) {
        _ = try? send(.removeNotifications(NotificationRemoval(list: .delivered, identifiers: identifiers)))
    }

    /// Removes every delivered notification.
    public func removeAllDeliveredNotifications() {
        _ = try? send(.removeNotifications(NotificationRemoval(list: .delivered)))
    }

    private func send(_ body: ClientMessage.Body) throws -> DaemonMessage.Body {
        guard let connection = Application.shared.daemonConnection else {
            throw ProtocolError(.unavailable, "the app has not checked in with backgrounderd")
        }
        let reply = try connection.request(body).body
        if case .error(let error) = reply { throw error }
        return reply
    }

    // MARK: From the daemon

    func receive(_ message: DaemonMessage) {
        switch message.body {
        case .notificationWillPresent(let notice):
            let notification = notice.notification
            guard let delegate else {
                // No delegate: not shown in front, as on iOS; said at once so nothing waits.
                answer(notification, [])
                return
            }
            Task {
                let options = await delegate.userNotificationCenter(self, willPresent: UNNotification(notification))
                self.answer(notification, options)
            }
        case .notificationResponse(let response):
            early.append(response)
            deliverEarlyResponses()
        default:
            break
        }
    }

    private func answer(_ notification: DeliveredNotification, _ options: UNNotificationPresentationOptions) {
        let presentation = NotificationPresentation(request: notification.request.identifier, options: options.names)
        try? Application.shared.daemonConnection?.post(.notificationPresentation(presentation))
    }

    private func deliverEarlyResponses() {
        guard let delegate, !early.isEmpty else { return }
        let waiting = early
        early = []
        for response in waiting {
            Task { await delegate.userNotificationCenter(self, didReceive: UNNotificationResponse(response)) }
        }
    }
}
