import BackgrounderProtocol
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Serves the control protocol on a Unix socket: a greeting on connect, then one reply per
/// request line. Each connection runs in its own child task; a client that misbehaves gets
/// an `ERROR` or a disconnect and nobody else notices.
final class ControlServer: Service {
    private let context: DaemonContext
    private let router: RequestRouter
    private let logger: Logger
    private let group: any EventLoopGroup
    private let codec = LineCodec()

    /// How long a peer may leave replies unread before it is disconnected.
    static let stalledReaderTimeout: TimeAmount = .seconds(5)

    private struct Connection: Sendable {
        var channel: NIOAsyncChannel<ControlFrame, ByteBuffer>
        var peer: PeerCredentials
    }

    init(context: DaemonContext, logger: Logger, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.context = context
        self.router = RequestRouter(context: context)
        self.logger = logger
        self.group = group
    }

    func run() async throws {
        let path = context.configuration.socketPath
        let logger = self.logger
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            // A script that writes a request and closes its side (`echo ... | socat`) still
            // gets its reply: end of input ends the request stream, not the connection.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 64 * 1024, high: 256 * 1024))
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false) { channel in
                PeerCredentials.of(channel).flatMapThrowing { peer in
                    var connectionLogger = logger
                    connectionLogger[metadataKey: "peer.pid"] = "\(peer.pid)"
                    try channel.pipeline.syncOperations.addHandlers(
                        StalledReaderHandler(timeout: Self.stalledReaderTimeout, logger: connectionLogger),
                        ByteToMessageHandler(LineFrameDecoder(maximumLength: WireLimits.maximumLineLength))
                    )
                    return Connection(
                        channel: try NIOAsyncChannel(wrappingChannelSynchronously: channel),
                        peer: peer
                    )
                }
            }
        guard chmod(path, 0o600) == 0 else {
            throw DaemonError(.socket, path: path, "cannot restrict the socket to its owner (chmod 0600)")
        }
        logger.info("listening on \(path)")
        defer { unlink(path) }

        try await withGracefulShutdownHandler {
            try await server.executeThenClose { inbound in
                try await withThrowingDiscardingTaskGroup { tasks in
                    for try await connection in inbound {
                        tasks.addTask {
                            // Clients stay connected for as long as they like; on shutdown
                            // their tasks are cancelled so the daemon does not wait on them.
                            await cancelWhenGracefulShutdown {
                                await self.serve(connection)
                            }
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }

    private func serve(_ connection: Connection) async {
        var logger = self.logger
        logger[metadataKey: "peer.pid"] = "\(connection.peer.pid)"
        logger[metadataKey: "peer.uid"] = "\(connection.peer.uid)"
        context.clientCount.add(1, ordering: .relaxed)
        defer { context.clientCount.subtract(1, ordering: .relaxed) }
        logger.debug("client connected")
        do {
            try await connection.channel.executeThenClose { inbound, outbound in
                try await outbound.write(encode(DaemonMessage(.version(.current))))
                for try await frame in inbound {
                    let reply: DaemonMessage
                    switch frame {
                    case .line(let line):
                        if line.readableBytes == 0 { continue }
                        reply = await router.reply(to: line, from: connection.peer, logger: logger)
                    case .overlong(let count):
                        logger.notice("discarded a \(count)-byte line")
                        reply = DaemonMessage(
                            .error(
                                ProtocolError(
                                    .lineTooLong,
                                    "a \(count)-byte line was discarded; lines may hold at most \(WireLimits.maximumLineLength) bytes"
                                )
                            )
                        )
                    }
                    try await outbound.write(encode(reply))
                }
            }
            logger.debug("client disconnected")
        } catch {
            logger.debug("client connection ended: \(error)")
        }
    }

    private func encode(_ message: DaemonMessage) -> ByteBuffer {
        do {
            return ByteBuffer(bytes: try codec.encode(message))
        } catch {
            // Only a non-finite number can fail to encode; say so rather than go silent.
            logger.error("could not encode a \(message.className) reply: \(error)")
            let fallback = DaemonMessage(
                id: message.id, .error(ProtocolError(.failed, "the daemon could not encode its reply")))
            return ByteBuffer(bytes: (try? codec.encode(fallback)) ?? Data("{\"class\":\"ERROR\"}\n".utf8))
        }
    }
}
