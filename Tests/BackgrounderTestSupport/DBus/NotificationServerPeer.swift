import Foundation

/// A desktop notification server on a test's bus (`Tests/Fixtures/dbus/notification_server.py`):
/// owns `org.freedesktop.Notifications`, records every `Notify`, and lets the test act as the
/// user — click an action, dismiss, let one expire — which emits the specification's signals.
public final class NotificationServerPeer: Sendable {
    /// The name a notification server owns.
    public static let name = "org.freedesktop.Notifications"
    /// Its object path.
    public static let path = "/org/freedesktop/Notifications"
    /// What `GetCapabilities` returns.
    public static let capabilities = ["actions", "body", "persistence"]

    /// The running script.
    public let peer: DBusPeerProcess

    /// Starts the server and waits until it owns its name.
    /// - Parameters:
    ///   - bus: The (session) bus.
    ///   - directory: Where its record file and log go.
    /// - Throws: ``HarnessError`` when it does not come up.
    public init(bus: SessionBus, directory: TemporaryDirectory) async throws {
        peer = try await DBusPeerProcess(
            script: "notification_server.py", name: Self.name, bus: bus, directory: directory)
    }

    /// Every notification received, oldest first (a replacement is a `Notify` of its own).
    public func notifications() -> [NotifyRecord] {
        peer.records("Notify").compactMap(NotifyRecord.init)
    }

    /// Waits for a notification that matches.
    /// - Parameters:
    ///   - timeout: The longest wait.
    ///   - matching: What it must hold.
    /// - Returns: The first match, or `nil` if none came in time.
    public func waitForNotification(
        timeout: Duration = .seconds(20),
        where matching: (NotifyRecord) -> Bool = { _ in true }
    ) async -> NotifyRecord? {
        await peer.waitForRecord("Notify", timeout: timeout) { record in
            NotifyRecord(record).map(matching) ?? false
        }.flatMap(NotifyRecord.init)
    }

    /// The user clicks an action (`"default"`: the notification's body): the server emits
    /// `ActivationToken`, `ActionInvoked(id, key)`, then `NotificationClosed(id, 2)`.
    /// - Throws: ``BusCallError`` when the notification is not showing or has no such action.
    public func invokeAction(id: UInt32, key: String = "default") async throws {
        try await peer.call(
            path: Self.path, method: "org.backgrounder.Test1.InvokeAction", signature: "us", ["\(id)", key])
    }

    /// The user closes the notification: `NotificationClosed(id, 2)`.
    /// - Throws: ``BusCallError`` when it is not showing.
    public func dismiss(id: UInt32) async throws {
        try await peer.call(path: Self.path, method: "org.backgrounder.Test1.Dismiss", signature: "u", ["\(id)"])
    }

    /// The notification times out: `NotificationClosed(id, 1)`.
    /// - Throws: ``BusCallError`` when it is not showing.
    public func expire(id: UInt32) async throws {
        try await peer.call(path: Self.path, method: "org.backgrounder.Test1.Expire", signature: "u", ["\(id)"])
    }

    /// The ids of the notifications still showing (not closed by anyone), in order.
    public func showing() async throws -> [UInt32] {
        let reply = try await peer.call(path: Self.path, method: "org.backgrounder.Test1.Showing")
        return (reply.first?.array ?? []).compactMap { $0.int.map(UInt32.init) }
    }

    /// Everything the server recorded (Notify, CloseNotification, GetCapabilities...).
    public func records() -> [PeerRecord] { peer.records() }

    /// Stops the server.
    public func stop() async { await peer.stop() }
}

/// One `Notify` call as the server received it.
public struct NotifyRecord: Sendable, Equatable {
    /// `app_name`.
    public var appName: String
    /// `replaces_id` (0: a new notification).
    public var replacesID: UInt32
    /// `app_icon`.
    public var appIcon: String
    /// `summary`.
    public var summary: String
    /// `body`.
    public var body: String
    /// `actions`, flat: key, label, key, label...
    public var actions: [String]
    /// `hints`, as JSON (a byte array is base64).
    public var hints: [String: RecordValue]
    /// Each hint's D-Bus type (`urgency` must be `y`).
    public var hintTypes: [String: String]
    /// `expire_timeout` in milliseconds (-1: the server's default, 0: never).
    public var timeout: Int32
    /// The id the server returned.
    public var id: UInt32

    /// The actions' keys (`default` is the body's).
    public var actionKeys: [String] { stride(from: 0, to: actions.count, by: 2).map { actions[$0] } }

    /// Reads a `Notify` record.
    public init?(_ record: PeerRecord) {
        guard record.event == "Notify",
            let id = record["id"]?.int,
            let replaces = record["replaces_id"]?.int,
            let timeout = record["timeout"]?.int
        else { return nil }
        appName = record["app_name"]?.string ?? ""
        replacesID = UInt32(replaces)
        appIcon = record["app_icon"]?.string ?? ""
        summary = record["summary"]?.string ?? ""
        body = record["body"]?.string ?? ""
        actions = (record["actions"]?.array ?? []).compactMap(\.string)
        hints = record["hints"]?.object ?? [:]
        hintTypes = (record["hint_types"]?.object ?? [:]).compactMapValues(\.string)
        self.timeout = Int32(timeout)
        self.id = UInt32(id)
    }
}
