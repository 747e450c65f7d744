import BackgrounderCore
package import Logging

/// The connection that owns a well-known bus name (logind's, the notification server's),
/// followed through `NameOwnerChanged`: the only sender whose signals speak for that service.
///
/// Any peer may send a signal with any path and interface, to every listener or to one
/// connection alone, and no match rule keeps a signal addressed to the daemon's own connection
/// out. So a signal that acts for the person (a click on a notification, the screen locking or
/// unlocking) is believed only when it comes from the name's owner.
package final class NameOwner: Sendable {
    /// The well-known name.
    package let name: String
    /// What speaks under the name, for log lines ("logind", "the notification server").
    package let role: String
    private let owner = Locked<String?>(nil)

    package init(_ name: String, role: String) {
        self.name = name
        self.role = role
    }

    /// Follows the name's owner on a new connection (the bus thread's, at set-up).
    /// - Parameters:
    ///   - connection: The connection.
    ///   - changed: Called on the bus thread whenever the owner changes.
    package func follow(on connection: BusConnection, changed: @escaping (BusConnection) -> Void = { _ in })
        throws(DBusError)
    {
        owner.withLock { $0 = nil }
        try connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
        ) { [self] message, connection in
            // NameOwnerChanged(name, old, new): the new owner, empty when the service left.
            let arguments = (try? message.readAll()) ?? []
            let new = arguments.count == 3 ? arguments[2].stringValue : nil
            owner.withLock { $0 = new?.isEmpty == false ? new : nil }
            changed(connection)
        }
        connection.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(name)]
        ) { [self] result in
            guard case .success(let values) = result, let current = values.first?.stringValue else { return }
            // A NameOwnerChanged that came first is newer than this answer.
            owner.withLock { $0 = $0 ?? current }
        }
    }

    /// Whether the name's owner sent `message`; a signal from anyone else is logged and
    /// must be ignored.
    package func sent(_ message: DBusMessage, logger: Logger) -> Bool {
        let current = owner.withLock { $0 }
        guard let sender = message.sender, sender == current else {
            logger.warning(
                "\(message.member ?? "a signal") from \(message.sender ?? "an unnamed peer") ignored: only \(role) (\(current ?? "not on the bus")) sends it"
            )
            return false
        }
        return true
    }
}
