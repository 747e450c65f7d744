import BackgrounderProtocol
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Serves the control protocol on a Unix socket: a greeting on connect, then one reply per
/// request line, answered by a ``ControlHandler`` on the connection's event loop. A client
/// that misbehaves gets an `ERROR` or a disconnect and nobody else notices.
final class ControlServer: Service, Sendable {
    private let context: DaemonContext
    private let router: RequestRouter
    private let logger: Logger
    private let group: any EventLoopGroup
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// How long a peer may leave replies unread before it is disconnected.
    static let stalledReaderTimeout: TimeAmount = .seconds(5)

    init(context: DaemonContext, logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.context = context
        self.router = RequestRouter(context: context)
        self.logger = logger
        self.group = group
    }

    func run() async throws {
        let path = context.configuration.socketPath
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            // A script that writes a request and closes its side (`echo ... | socat`) still
            // gets its reply: end of input ends the requests, not the connection.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 64 * 1024, high: 256 * 1024))
            .childChannelInitializer { [self] channel in
                PeerCredentials.of(channel).flatMapThrowing { peer in
                    try self.configure(channel, peer: peer)
                }
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false)
            .get()
        guard chmod(path, 0o600) == 0 else {
            server.close(promise: nil)
            throw DaemonError(.socket, path: path, "cannot restrict the socket to its owner (chmod 0600)")
        }
        logger.info("listening on \(path)")
        defer { unlink(path) }

        try await withGracefulShutdownHandler {
            try await server.closeFuture.get()
        } onGracefulShutdown: { [self] in
            server.close(promise: nil)
            // Clients may stay connected as long as they like; shutdown does not wait on them.
            for channel in self.connections.withLock({ Array($0.values) }) {
                channel.close(promise: nil)
            }
        }
    }

    private func configure(_ channel: any Channel, peer: PeerCredentials) throws {
        var connectionLogger = logger
        connectionLogger[metadataKey: "peer.pid"] = "\(peer.pid)"
        connectionLogger[metadataKey: "peer.uid"] = "\(peer.uid)"
        try channel.pipeline.syncOperations.addHandlers(
            StalledReaderHandler(timeout: Self.stalledReaderTimeout, logger: connectionLogger),
            ByteToMessageHandler(LineFrameDecoder(maximumLength: WireLimits.maximumLineLength)),
            ControlHandler(router: router, peer: peer, context: context, logger: connectionLogger)
        )
        let key = ObjectIdentifier(channel)
        connections.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [self] _ in
            _ = self.connections.withLock { $0.removeValue(forKey: key) }
        }
    }
}
