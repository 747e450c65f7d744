import Foundation

/// A UnifiedPush connector on a test's bus (`Tests/Fixtures/dbus/push_connector.py`): owns an
/// app's name, answers `org.unifiedpush.Connector1` and `Connector2` at
/// `/org/unifiedpush/Connector` and records `NewEndpoint`, `Message` and `Unregistered`
/// (with the `interface` called). It checks ``PushDistributorPeer``
/// without the daemon, and shows what the daemon's connector must answer.
public final class PushConnectorPeer: Sendable {
    /// The connector's object path.
    public static let path = "/org/unifiedpush/Connector"

    /// The running script.
    public let peer: DBusPeerProcess

    /// Starts the connector and waits until it owns the app's name.
    /// - Parameters:
    ///   - service: The app's well-known name.
    ///   - token: A token to register with at start-up (with the first distributor on the bus).
    ///   - description: The registration's description.
    ///   - version: Register through `Distributor1` (spec 0.2) or `Distributor2` (0.3).
    ///   - bus: The session bus.
    ///   - directory: Where its record file and log go.
    /// - Throws: ``HarnessError`` when it does not come up.
    public init(
        service: String,
        register token: String? = nil,
        description: String = "",
        version: Int = 1,
        bus: SessionBus,
        directory: TemporaryDirectory
    ) async throws {
        var arguments = ["--service", service]
        if let token {
            arguments += ["--register", token, "--description", description, "--version", "\(version)"]
        }
        peer = try await DBusPeerProcess(
            script: "push_connector.py", name: service, bus: bus, directory: directory, arguments: arguments)
    }

    /// Everything it recorded: `NewEndpoint` (token, endpoint), `Message` (token, message in
    /// base64, id), `Unregistered` (token), and `Registered`/`RegisterFailed` for its own
    /// start-up registration.
    public func records() -> [PeerRecord] { peer.records() }

    /// Stops the connector.
    public func stop() async { await peer.stop() }
}
