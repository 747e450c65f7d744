import Foundation

/// A stand-in for systemd-logind on a test's bus (`Tests/Fixtures/dbus/logind.py`): one
/// session, id "1" at `/org/freedesktop/login1/session/_31` (and at `.../session/auto`), whose
/// lock state the test changes the way a desktop does — `Lock`/`Unlock` signals (the request)
/// and `LockedHint` (the screen locker's report, with `PropertiesChanged`).
///
/// logind lives on the system bus: start a second ``SessionBus`` to play it and give the
/// daemon ``environment`` (`DBUS_SYSTEM_BUS_ADDRESS`).
public final class LogindPeer: Sendable {
    /// logind's name.
    public static let name = "org.freedesktop.login1"
    /// The Manager object.
    public static let managerPath = "/org/freedesktop/login1"
    /// The one session's object (id "1", escaped as logind does).
    public static let sessionPath = "/org/freedesktop/login1/session/_31"
    /// The caller's session, as logind resolves it (signals never come from here).
    public static let autoPath = "/org/freedesktop/login1/session/auto"
    /// The session's id.
    public static let sessionID = "1"

    /// The running script.
    public let peer: DBusPeerProcess

    /// `DBUS_SYSTEM_BUS_ADDRESS` for the daemon: this peer's bus plays the system bus.
    public var environment: [String: String] { peer.bus.systemEnvironment }

    /// Starts the stand-in and waits until it owns `org.freedesktop.login1`.
    /// - Parameters:
    ///   - bus: The bus that plays the system bus.
    ///   - directory: Where its record file and log go.
    ///   - uid: The session's user (this process's by default).
    ///   - user: The user's name (the uid's by default).
    /// - Throws: ``HarnessError`` when it does not come up.
    public init(bus: SessionBus, directory: TemporaryDirectory, uid: UInt32? = nil, user: String? = nil) async throws {
        var arguments: [String] = []
        if let uid { arguments += ["--uid", "\(uid)"] }
        if let user { arguments += ["--user", user] }
        peer = try await DBusPeerProcess(
            script: "logind.py", name: Self.name, bus: bus, directory: directory, arguments: arguments)
    }

    private func test(_ member: String, signature: String = "", _ arguments: [String] = []) async throws {
        try await peer.call(
            path: Self.sessionPath, method: "org.backgrounder.Test1.\(member)", signature: signature, arguments)
    }

    /// Emits the session's `Lock` signal (what `loginctl lock-session` makes logind do).
    public func lock() async throws { try await test("Lock") }

    /// Emits the session's `Unlock` signal.
    public func unlock() async throws { try await test("Unlock") }

    /// Sets `LockedHint`, as a screen locker does once the screen is locked or unlocked;
    /// `PropertiesChanged` follows when the value changes.
    public func setLockedHint(_ locked: Bool) async throws {
        try await test("SetLockedHint", signature: "b", [locked ? "true" : "false"])
    }

    /// Sets `Active` (and `State`: "active" or "online"), as switching to another session does.
    public func setActive(_ active: Bool) async throws {
        try await test("SetActive", signature: "b", [active ? "true" : "false"])
    }

    /// The session's `LockedHint`, read as a client does (`Properties.Get`).
    public func lockedHint() async throws -> Bool {
        let reply = try await peer.call(
            path: Self.sessionPath, method: "org.freedesktop.DBus.Properties.Get", signature: "ss",
            ["org.freedesktop.login1.Session", "LockedHint"])
        // busctl shows a variant as {"type": "b", "data": VALUE}.
        guard let value = reply.first?.object?["data"]?.bool else {
            throw HarnessError("LockedHint: the reply \(reply) holds no Boolean")
        }
        return value
    }

    /// Everything it recorded (GetSession, Get, GetAll, SetLockedHint...).
    public func records() -> [PeerRecord] { peer.records() }

    /// Stops the stand-in.
    public func stop() async { await peer.stop() }
}
