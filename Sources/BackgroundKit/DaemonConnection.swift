public import BackgrounderProtocol

/// The connection an app (or a sample's command line) has to `backgrounderd`.
///
/// The socket comes from `BACKGROUNDER_SOCKET`, which the daemon sets for the apps it
/// launches, falling back to the daemon's default path.
public final class DaemonConnection {
    private let client: ControlClient

    /// What the daemon said about itself when the connection opened.
    public var daemonVersion: VersionInfo? { client.greeting }

    /// Connects and introduces the client.
    /// - Parameters:
    ///   - socketPath: The control socket; by default `BACKGROUNDER_SOCKET` or the daemon's default.
    ///   - clientName: A name for the daemon's log.
    /// - Throws: ``ControlClientError``, with `.daemonNotRunning` when no daemon listens.
    public init(socketPath: String = DefaultPaths.socket, clientName: String) throws(ControlClientError) {
        client = try ControlClient(socketPath: socketPath)
        let reply = try client.request(.hello(Hello(client: clientName)))
        if case .error(let error) = reply.body {
            throw .unreadableReply(error.description)
        }
    }

    /// The daemon's status.
    /// - Returns: The status.
    /// - Throws: ``ControlClientError`` when the daemon cannot answer.
    public func status() throws(ControlClientError) -> DaemonStatus {
        let reply = try client.request(.status)
        guard case .status(let status) = reply.body else {
            throw .unreadableReply("expected STATUS, got \(reply.className)")
        }
        return status
    }
}
