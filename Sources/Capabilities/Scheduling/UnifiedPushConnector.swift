import BackgrounderAppCore
package import BackgrounderCore
import BackgrounderProtocol
package import BackgrounderSystem
import Foundation
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// UnifiedPush, the Linux standard for push, over D-Bus: every app with a device token (it
/// called `registerForRemoteNotifications`) is registered with the session's distributor as a
/// connector, and a message the distributor delivers becomes the app's silent push, with the
/// same payload limit and rate limit as `bgctl push`.
///
/// The daemon owns one connector name per app (`org.backgrounder.Push.<app>`) on one
/// connection, serves `org.unifiedpush.Connector1` at `/org/unifiedpush/Connector`, and tells
/// the apps apart by token (the app's device token, stable across restarts as the
/// specification asks). Only the distributor it registered with may deliver: any other peer
/// on the bus calling `Message` is refused.
package final class UnifiedPushConnector: Sendable {
    /// What the distributor sent for an app.
    package enum Event: Sendable {
        /// A message, to be offered as a push.
        case message(token: String, payload: JSONValue, distributor: String)
        /// The app's endpoint, to be handed to it.
        case endpoint(token: String, url: String)
    }

    package static let connectorPath = "/org/unifiedpush/Connector"
    package static let connectorInterface = "org.unifiedpush.Connector1"
    package static let distributorPath = "/org/unifiedpush/Distributor"
    package static let distributorInterface = "org.unifiedpush.Distributor1"
    package static let distributorPrefix = "org.unifiedpush.Distributor."
    package static let endpointName = "unifiedpush"

    private let bus: DesktopBus
    private let logger: Logger
    /// Device tokens by app.
    private let tokens = Locked<[BundleID: String]>([:])
    /// The distributor registered with: its name, and the unique name only it may call from.
    private let state = Locked<(distributor: String?, owner: String?)>((nil, nil))
    private let eventStream: AsyncStream<Event>.Continuation
    /// Messages and endpoints, for ``DesktopRequests`` to carry out on the app manager.
    package let events: AsyncStream<Event>

    package init(bus: DesktopBus, logger: Logger) {
        self.bus = bus
        self.logger = logger
        (events, eventStream) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    /// The connector name of an app.
    package static func serviceName(for identifier: BundleID) -> String {
        "org.backgrounder.Push." + BusName.elements(of: identifier.rawValue)
    }

    /// Starts serving (called once, when the daemon starts).
    package func start() {
        bus.setNote(.unifiedPush, "no session bus yet")
        bus.add(
            BusEndpoint(
                name: Self.endpointName, kind: .session,
                setUp: { [self] (connection) throws(DBusError) in try setUp(connection) },
                lost: { [self] in
                    state.withLock { $0 = (nil, nil) }
                    bus.setNote(.unifiedPush, "not registered: the session bus connection was lost")
                }))
    }

    /// The apps' device tokens changed (an app registered or unregistered for pushes).
    package func update(_ newTokens: [BundleID: String]) {
        let before = tokens.withLock { tokens in
            defer { tokens = newTokens }
            return tokens
        }
        guard before != newTokens else { return }
        bus.perform { [self] loop in
            guard let connection = loop.connection(Self.endpointName) else { return }
            for (identifier, token) in before where newTokens[identifier] != token {
                unregister(identifier, token: token, on: connection)
            }
            let added = newTokens.filter { before[$0.key] != $0.value }
            if let distributor = state.withLock({ $0.distributor }) {
                register(added, with: distributor, on: connection)
            }
        }
    }

    // MARK: On the bus thread

    private func setUp(_ connection: BusConnection) throws(DBusError) {
        try connection.addObject(Self.connectorPath) { [self] message, connection in
            handle(message, on: connection)
        }
        try connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0namespace='org.unifiedpush'"
        ) { [self] message, connection in
            guard let arguments = try? message.readAll(), arguments.count == 3,
                let name = arguments[0].stringValue, name.hasPrefix(Self.distributorPrefix)
            else { return }
            let current = state.withLock { $0.distributor }
            if arguments[2].stringValue?.isEmpty == false, current == nil,
                configuredDistributor.map({ $0 == name }) ?? true
            {
                logger.info("UnifiedPush: distributor \(name) appeared")
                choose([name], on: connection)
            } else if arguments[2].stringValue?.isEmpty == true, name == current {
                state.withLock { $0 = (nil, nil) }
                bus.setNote(.unifiedPush, "no distributor: \(name) left the bus")
                logger.notice("UnifiedPush: distributor \(name) left; pushes wait for another")
                findDistributor(on: connection)
            }
        }
        findDistributor(on: connection)
    }

    /// The distributor the person chose (`UNIFIEDPUSH_DISTRIBUTOR`, its name's last part), if any.
    private var configuredDistributor: String? {
        bus.environmentValue("UNIFIEDPUSH_DISTRIBUTOR").flatMap { $0.isEmpty ? nil : Self.distributorPrefix + $0 }
    }

    /// Lists the bus's names and picks a distributor: `UNIFIEDPUSH_DISTRIBUTOR`'s if set (and
    /// then no other), else the first in name order that is not an app's process.
    private func findDistributor(on connection: BusConnection) {
        connection.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListNames") {
            [self] result in
            guard case .success(let values) = result, case .array(_, let names) = values.first else {
                bus.setNote(.unifiedPush, "cannot list the session bus's names")
                return
            }
            let distributors = names.compactMap(\.stringValue).filter { $0.hasPrefix(Self.distributorPrefix) }.sorted()
            if let configured = configuredDistributor {
                guard distributors.contains(configured) else {
                    bus.setNote(
                        .unifiedPush,
                        "no distributor: UNIFIEDPUSH_DISTRIBUTOR names \(configured), which is not on the session bus")
                    return
                }
                return choose([configured], on: connection)
            }
            guard !distributors.isEmpty else {
                bus.setNote(.unifiedPush, "no UnifiedPush distributor is installed (none on the session bus)")
                return
            }
            choose(distributors, on: connection)
        }
    }

    /// Registers with the first of `candidates` whose owner is not an app: a distributor
    /// learns every app's token and delivers their pushes, so an app that owned a distributor
    /// name (it can, where it reaches the session bus) would collect its neighbours' tokens
    /// and forge pushes to them.
    private func choose(_ candidates: [String], on connection: BusConnection) {
        guard let distributor = candidates.first else { return }
        let next = { [self] in choose(Array(candidates.dropFirst()), on: connection) }
        connection.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
            [.string(distributor)]
        ) { [self] result in
            guard case .success(let values) = result, let owner = values.first?.stringValue else { return next() }
            bus.owner(of: owner, on: connection) { [self] process in
                switch process {
                case .none:
                    state.withLock { $0 = (distributor, owner) }
                    bus.setNote(.unifiedPush, "distributor \(distributor)")
                    register(tokens.withLock { $0 }, with: distributor, on: connection)
                case .app(let app):
                    refuse(distributor, because: "it is a process of the app \(app)")
                    next()
                case .unverifiable(let why):
                    refuse(distributor, because: "its process could not be verified (\(why))")
                    next()
                }
            }
        }
    }

    private func refuse(_ distributor: String, because reason: String) {
        logger.warning("UnifiedPush: distributor \(distributor) refused: \(reason)")
        bus.setNote(.unifiedPush, "no distributor: \(distributor) refused, \(reason)")
    }

    private func register(_ apps: [BundleID: String], with distributor: String, on connection: BusConnection) {
        for (identifier, token) in apps.sorted(by: { $0.key < $1.key }) {
            let name = Self.serviceName(for: identifier)
            do throws(DBusError) {
                try connection.requestName(name)
            } catch  where error.code != -EALREADY {
                // EALREADY: already ours, from an earlier registration.
                logger.warning("UnifiedPush: \(identifier): \(error)")
                continue
            } catch {}
            connection.call(
                distributor, Self.distributorPath, Self.distributorInterface, "Register",
                [.string(name), .string(token), .string(identifier.rawValue)], timeout: .seconds(30)
            ) { [self] result in
                switch result {
                case .success(let values):
                    let outcome = values.first?.stringValue ?? ""
                    if outcome == "REGISTRATION_SUCCEEDED" || outcome == "NEW_ENDPOINT" {
                        logger.info("UnifiedPush: \(identifier) registered with \(distributor)")
                    } else {
                        let reason = values.dropFirst().first?.stringValue ?? ""
                        logger.warning("UnifiedPush: \(distributor) refused \(identifier): \(outcome) \(reason)")
                    }
                case .failure(let error):
                    logger.warning("UnifiedPush: cannot register \(identifier) with \(distributor): \(error)")
                }
            }
        }
    }

    private func unregister(_ identifier: BundleID, token: String, on connection: BusConnection) {
        if let distributor = state.withLock({ $0.distributor }) {
            connection.call(
                distributor, Self.distributorPath, Self.distributorInterface, "Unregister", [.string(token)]
            ) { _ in }
        }
        connection.releaseName(Self.serviceName(for: identifier))
    }

    private func handle(_ message: DBusMessage, on connection: BusConnection) -> Bool {
        if message.interface == "org.freedesktop.DBus.Introspectable", message.member == "Introspect" {
            connection.reply(to: message, [.string(Self.introspection)])
            return true
        }
        guard message.interface == Self.connectorInterface, let member = message.member else { return false }
        let (distributor, owner) = state.withLock { ($0.distributor, $0.owner) }
        // Pushes wake apps: only the distributor they are registered with may send them.
        guard let owner, message.sender == owner, let distributor else {
            logger.warning("UnifiedPush: \(member) from \(message.sender ?? "?") refused: not the distributor")
            connection.replyError(
                to: message, name: "org.freedesktop.DBus.Error.AccessDenied",
                "only the distributor this connector registered with may call it")
            return true
        }
        let arguments = (try? message.readAll()) ?? []
        let token = arguments.first?.stringValue ?? ""
        let identifier = tokens.withLock { $0.first { $0.value == token }?.key }
        defer { connection.reply(to: message) }
        guard let identifier else {
            logger.info("UnifiedPush: \(member) for an unknown token ignored")
            return true
        }
        switch member {
        case "Message":
            guard arguments.count >= 2, let bytes = arguments[1].bytesValue else { return true }
            let id = arguments.dropFirst(2).first?.stringValue ?? ""
            eventStream.yield(.message(token: token, payload: Self.payload(bytes, id: id), distributor: distributor))
        case "NewEndpoint":
            guard let endpoint = arguments.dropFirst().first?.stringValue else { return true }
            eventStream.yield(.endpoint(token: token, url: endpoint))
            logger.notice("UnifiedPush: \(identifier)'s endpoint is \(endpoint)")
        case "Unregistered":
            logger.notice("UnifiedPush: \(distributor) unregistered \(identifier)")
        default:
            break
        }
        return true
    }

    /// A UnifiedPush message as a silent push's payload: a JSON object that is itself a
    /// push payload (has `aps`) passes as it is; anything else is carried whole under
    /// `unifiedpush`, as text when it is UTF-8, else base64, with
    /// `aps.content-available: 1`.
    package static func payload(_ bytes: [UInt8], id: String) -> JSONValue {
        if let text = String(validating: bytes, as: UTF8.self), let value = try? JSONValue(text: text),
            case .object(let object) = value, object["aps"] != nil
        {
            return value
        }
        let text = String(validating: bytes, as: UTF8.self)
        return .object([
            "aps": .object(["content-available": .number(1)]),
            "unifiedpush": .object([
                "message": .string(text ?? Data(bytes).base64EncodedString()),
                "encoding": .string(text == nil ? "base64" : "utf8"),
                "id": .string(id),
            ]),
        ])
    }

    package static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.unifiedpush.Connector1">
            <method name="Message"><arg name="token" type="s" direction="in"/><arg name="message" type="ay" direction="in"/><arg name="messageIdentifier" type="s" direction="in"/></method>
            <method name="NewEndpoint"><arg name="token" type="s" direction="in"/><arg name="endpoint" type="s" direction="in"/></method>
            <method name="Unregistered"><arg name="token" type="s" direction="in"/></method>
          </interface>
        </node>
        """
}
