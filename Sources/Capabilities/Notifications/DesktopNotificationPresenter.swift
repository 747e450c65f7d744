import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
package import Logging

/// Shows apps' notifications through the desktop's notification server
/// (`org.freedesktop.Notifications` on the session bus: dunst, GNOME Shell, KDE Plasma...),
/// and hears the person act on them.
///
/// Every notification carries the `default` action, which servers run when the notification
/// is clicked: `ActionInvoked` comes back here and opens the app with the response. The
/// signals are broadcast to every client, so only the ids this presenter was given count, and
/// only from the server's own connection: any peer on the bus can emit a signal with the
/// server's path and interface, and one that forged `ActionInvoked` would otherwise be taken
/// for the person clicking another app's notification, bringing that app forward.
/// Without a server, or without a session bus, the notification goes to the app's log as
/// ``LogNotificationPresenter`` writes it, so nothing is lost.
package final class DesktopNotificationPresenter: NotificationPresenter {
    /// The person acted on a notification: whose, which, and the action's key.
    package struct Activation: Sendable {
        package var bundle: BundleID
        package var request: String
        package var action: String
    }

    package static let destination = "org.freedesktop.Notifications"
    package static let path = "/org/freedesktop/Notifications"
    package static let interface = "org.freedesktop.Notifications"
    /// The action key servers run on a click.
    package static let defaultAction = "default"
    /// What a dismissal is passed on as: iOS's dismiss action.
    package static let dismissAction = NotificationAction.dismiss

    package let bus: DesktopBus
    package let logger: Logger
    private let fallback: LogNotificationPresenter
    /// Ids the server gave, to tell our notifications from other clients', with the app and
    /// request each stands for.
    private let shown = Locked<[UInt32: (bundle: BundleID, request: String)]>([:])
    /// The connection that owns `org.freedesktop.Notifications`: the only sender whose signals
    /// speak for the person.
    private let server = NameOwner(DesktopNotificationPresenter.destination, role: "the notification server")
    private let activationStream: AsyncStream<Activation>.Continuation
    /// Activations, for ``DesktopRequests`` to carry out on the app manager.
    package let activations: AsyncStream<Activation>
    /// Permission prompts shown, by prompt number: the notification's id
    /// (DesktopNotificationPresenter+Consent.swift).
    package let shownPrompts = Locked<[Int: UInt32]>([:])
    package let answerStream: AsyncStream<ConsentAnswer>.Continuation
    /// A person's answers to permission prompts, pressed on the notification, for
    /// ``DesktopRequests`` to carry out as `bgctl answer` does.
    package let answers: AsyncStream<ConsentAnswer>

    package var name: String { "desktop" }

    package init(bus: DesktopBus, fallback: LogNotificationPresenter, logger: Logger) {
        self.bus = bus
        self.fallback = fallback
        self.logger = logger
        (activations, activationStream) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
        (answers, answerStream) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Starts following the session bus (called once, when the daemon starts).
    package func start() {
        bus.setNote(.notifications, "no session bus yet: notifications are logged")
        bus.add(
            BusEndpoint(
                name: DesktopBus.sessionEndpoint, kind: .session,
                setUp: { [self] (connection) throws(DBusError) in try setUp(connection) },
                lost: { [self] in
                    bus.setNote(.notifications, "the session bus connection was lost: notifications are logged")
                }))
    }

    package func present(bundle: BundleID, appName: String, notification: DeliveredNotification)
        async throws(NotificationPresenterError) -> String
    {
        let content = notification.request.content
        var hints: [String: DBusValue] = [
            // A byte, as the specification says: many servers ignore any other type.
            "urgency": .byte(1),
            "x-backgrounder-bundle": .string(bundle.rawValue),
            "x-backgrounder-request": .string(notification.request.identifier),
        ]
        if let sound = content.sound { hints["sound-name"] = .string(sound.isEmpty ? "message-new-instant" : sound) }
        if !content.threadIdentifier.isEmpty { hints["x-backgrounder-thread"] = .string(content.threadIdentifier) }
        let arguments: [DBusValue] = [
            .string(appName), .uint32(0), .string(""), .string(content.heading), .string(content.body),
            .strings([Self.defaultAction, "Open"]), .vardict(hints), .int32(-1),
        ]
        let result = await call("Notify", arguments)
        guard case .success(let values) = result, let id = values.first?.integerValue.flatMap(UInt32.init(exactly:))
        else {
            let reason: String
            switch result {
            case .failure(let error): reason = error.description
            case .success: reason = "the server's reply has no id"
            }
            logger.info("notification \(notification.request.identifier) of \(bundle) is logged: not shown (\(reason))")
            return try await fallback.present(bundle: bundle, appName: appName, notification: notification)
        }
        shown.withLock { $0[id] = (bundle, notification.request.identifier) }
        logger.info("notification \(notification.request.identifier) of \(bundle) shown as desktop notification \(id)")
        return String(id)
    }

    package func withdraw(_ handle: String) async {
        guard let id = UInt32(handle) else { return await fallback.withdraw(handle) }
        guard shown.withLock({ $0.removeValue(forKey: id) }) != nil else { return }
        _ = await call("CloseNotification", [.uint32(id)])
    }

    /// Calls the notification server on the bus thread.
    package func call(_ member: String, _ arguments: [DBusValue]) async -> Result<[DBusValue], DBusError> {
        await withCheckedContinuation { continuation in
            bus.perform { loop in
                guard let connection = loop.connection(DesktopBus.sessionEndpoint) else {
                    continuation.resume(returning: .failure(DBusError("no session bus")))
                    return
                }
                connection.call(Self.destination, Self.path, Self.interface, member, arguments) {
                    continuation.resume(returning: $0)
                }
            }
        }
    }

    // MARK: On the bus thread

    private func setUp(_ connection: BusConnection) throws(DBusError) {
        let signals = "type='signal',path='\(Self.path)',interface='\(Self.interface)'"
        try connection.addMatch(signals + ",member='ActionInvoked'") { [self] message, connection in
            guard server.sent(message, logger: logger),
                let arguments = try? message.readAll(), arguments.count == 2,
                let id = arguments[0].integerValue.flatMap(UInt32.init(exactly:)),
                let action = arguments[1].stringValue
            else { return }
            if promptAnswered(id, action, from: message.sender, on: connection) { return }
            guard let owner = shown.withLock({ $0.removeValue(forKey: id) }) else { return }
            activationStream.yield(Activation(bundle: owner.bundle, request: owner.request, action: action))
        }
        try connection.addMatch(signals + ",member='NotificationClosed'") { [self] message, _ in
            guard server.sent(message, logger: logger),
                let arguments = try? message.readAll(), arguments.count == 2,
                let id = arguments[0].integerValue.flatMap(UInt32.init(exactly:))
            else { return }
            promptClosed(id)
            guard let owner = shown.withLock({ $0.removeValue(forKey: id) }) else { return }
            // Reason 2: the person dismissed it, which takes it off the delivered list as on
            // iOS. Expired (1) or closed by a call (3), it stays delivered. A click comes
            // first, with ActionInvoked, and has already taken the id.
            if arguments[1].integerValue == 2 {
                activationStream.yield(
                    Activation(bundle: owner.bundle, request: owner.request, action: Self.dismissAction))
            }
        }
        try server.follow(on: connection) { [self] connection in describeServer(on: connection) }
        describeServer(on: connection)
    }

    /// Records the server's name and version, or that there is none, for `bgctl status`.
    private func describeServer(on connection: BusConnection) {
        connection.call(Self.destination, Self.path, Self.interface, "GetServerInformation") { [self] result in
            switch result {
            case .success(let values) where values.count >= 3:
                let server = [values[0], values[2]].compactMap(\.stringValue).joined(separator: " ")
                bus.setNote(.notifications, server)
                logger.info("notifications go to \(server)")
            case .success, .failure:
                bus.setNote(.notifications, "no notification server on the session bus: notifications are logged")
            }
        }
    }
}
