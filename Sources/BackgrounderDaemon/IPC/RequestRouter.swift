import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Logging
import NIOCore

/// Turns one request line into one reply. Never throws: whatever a client sends, it gets
/// an answer (an `ERROR` naming what was wrong), and nobody else is affected.
struct RequestRouter: Sendable {
    let context: DaemonContext
    private let codec = LineCodec()

    init(context: DaemonContext) {
        self.context = context
    }

    /// Answers one line from a peer.
    func reply(to line: ByteBuffer, from peer: PeerCredentials, logger: Logger) async -> DaemonMessage {
        let bytes = Array(line.readableBytesView)
        let message: ClientMessage
        do {
            message = try codec.decode(ClientMessage.self, from: bytes)
        } catch {
            logger.notice("bad request: \(error)")
            return DaemonMessage(id: Self.leniantID(in: bytes), .error(error))
        }
        logger.trace("\(message.className)")
        return DaemonMessage(id: message.id, await answer(message.body, from: peer))
    }

    private func answer(_ body: ClientMessage.Body, from peer: PeerCredentials) async -> DaemonMessage.Body {
        switch body {
        case .hello(let hello):
            guard hello.protocol == ProtocolVersion.major else {
                return .error(
                    ProtocolError(
                        .versionMismatch,
                        "this daemon speaks protocol \(ProtocolVersion.major), the client \(hello.protocol)"
                    )
                )
            }
            return .hello(HelloReply(pid: peer.pid, uid: peer.uid))
        case .status:
            return .status(await context.status())
        case .bundles:
            return .bundles(await context.registry.list())
        case .reload:
            return .reload(await context.registry.reload())
        }
    }

    /// The `id` of a request that failed to decode, so even its error can be matched up.
    private static func leniantID(in bytes: [UInt8]) -> MessageID? {
        struct OnlyID: Decodable { var id: MessageID? }
        return (try? JSONDecoder().decode(OnlyID.self, from: Data(bytes)))?.id
    }
}
