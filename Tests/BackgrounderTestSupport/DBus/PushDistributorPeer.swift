import Foundation

/// A UnifiedPush distributor on a test's (session) bus (`Tests/Fixtures/dbus/push_distributor.py`):
/// owns `org.unifiedpush.Distributor.test`, answers `Register` with success and a fresh
/// endpoint sent to the connector's `NewEndpoint`, and pushes the test's messages to the
/// connector's `Message`. It serves `org.unifiedpush.Distributor1` (D-Bus spec 0.2) and
/// `Distributor2` (0.3, `a{sv}` arguments), and calls a connector on the generation it
/// registered with (`Connector1` or `Connector2`).
public final class PushDistributorPeer: Sendable {
    /// The distributor's name.
    public static let name = "org.unifiedpush.Distributor.test"
    /// Its object path.
    public static let path = "/org/unifiedpush/Distributor"
    /// Where every endpoint it hands out begins.
    public static let endpointPrefix = "https://push.example.test/up/"

    /// The running script.
    public let peer: DBusPeerProcess

    /// Starts the distributor and waits until it owns its name.
    /// - Parameters:
    ///   - bus: The session bus.
    ///   - directory: Where its record file and log go.
    /// - Throws: ``HarnessError`` when it does not come up.
    public init(bus: SessionBus, directory: TemporaryDirectory) async throws {
        peer = try await DBusPeerProcess(
            script: "push_distributor.py", name: Self.name, bus: bus, directory: directory)
    }

    /// Every `Register` call, oldest first.
    public func registrations() -> [PushRegistration] {
        peer.records("Register").compactMap(PushRegistration.init)
    }

    /// Waits for a `Register` call that matches.
    /// - Parameters:
    ///   - timeout: The longest wait.
    ///   - matching: What it must hold.
    /// - Returns: The first match, or `nil` if none came in time.
    public func waitForRegistration(
        timeout: Duration = .seconds(20),
        where matching: (PushRegistration) -> Bool = { _ in true }
    ) async -> PushRegistration? {
        await peer.waitForRecord("Register", timeout: timeout) { record in
            PushRegistration(record).map(matching) ?? false
        }.flatMap(PushRegistration.init)
    }

    private func test(_ member: String, signature: String, _ arguments: [String]) async throws -> [RecordValue] {
        try await peer.call(
            path: Self.path, method: "org.backgrounder.Test1.\(member)", signature: signature, arguments)
    }

    /// Pushes a message to the token's connector (`Connector1.Message`) and returns once the
    /// connector has answered.
    /// - Parameters:
    ///   - token: A registered token.
    ///   - message: The message's bytes (raw POST data).
    ///   - id: The message id ("" for none).
    /// - Throws: ``BusCallError`` when the token is unknown or the connector's call failed
    ///   (nobody owns its name: `ServiceUnknown`).
    public func send(token: String, message: [UInt8], id: String = "") async throws {
        _ = try await test("Send", signature: "says", [token, "\(message.count)"] + message.map { "\($0)" } + [id])
    }

    /// The distributor drops the registration by itself (`Connector1.Unregistered(token)`).
    /// - Throws: ``BusCallError`` when the token is unknown or the connector's call failed.
    public func unregister(token: String) async throws {
        _ = try await test("Unregister", signature: "s", [token])
    }

    /// Gives the registration a new endpoint, announced with `Connector1.NewEndpoint`.
    /// - Returns: The new endpoint.
    /// - Throws: ``BusCallError`` when the token is unknown or the connector's call failed.
    public func changeEndpoint(token: String) async throws -> String {
        let reply = try await test("ChangeEndpoint", signature: "s", [token])
        return reply.first?.string ?? ""
    }

    /// The registration's current endpoint.
    /// - Throws: ``BusCallError`` when the token is unknown.
    public func endpoint(token: String) async throws -> String {
        let reply = try await test("Endpoint", signature: "s", [token])
        return reply.first?.string ?? ""
    }

    /// Makes later `Register` calls fail with a reason (`NETWORK`, `ACTION_REQUIRED`...), or
    /// succeed again with `nil`.
    public func failRegistrations(reason: String?) async throws {
        _ = try await test("FailRegistrations", signature: "s", [reason ?? ""])
    }

    /// The calls it made to connectors and how each went (`Delivered`/`DeliveryFailed`
    /// records with `method`, `interface`, `service`, `token`, and the connector's `reply`
    /// or the `error`).
    public func deliveries() -> [PeerRecord] {
        peer.records().filter { $0.event == "Delivered" || $0.event == "DeliveryFailed" }
    }

    /// Everything it recorded.
    public func records() -> [PeerRecord] { peer.records() }

    /// Stops the distributor.
    public func stop() async { await peer.stop() }
}

/// One `Register` call as the distributor received it, and its answer.
public struct PushRegistration: Sendable, Equatable {
    /// The interface generation used: 1 (`Distributor1`) or 2 (`Distributor2`).
    public var version: Int
    /// The connector's bus name (the app), where the distributor calls back.
    public var service: String
    /// The connection token.
    public var token: String
    /// The description.
    public var description: String
    /// `REGISTRATION_SUCCEEDED` or `REGISTRATION_FAILED`.
    public var result: String
    /// The failure's reason ("" on success).
    public var reason: String
    /// The endpoint sent to `NewEndpoint` (`nil` when registration failed).
    public var endpoint: String?

    /// Reads a `Register` record.
    public init?(_ record: PeerRecord) {
        guard record.event == "Register", let service = record["service"]?.string,
            let token = record["token"]?.string
        else { return nil }
        version = record["version"]?.int ?? 1
        self.service = service
        self.token = token
        description = record["description"]?.string ?? ""
        result = record["result"]?.string ?? ""
        reason = record["reason"]?.string ?? ""
        endpoint = record["endpoint"]?.string
    }
}
