import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation
import Logging
import NIOCore

/// Turns one request line into one reply. Never throws: whatever a client sends, it gets
/// an answer (an `ERROR` naming what was wrong), and nobody else is affected.
struct RequestRouter: Sendable {
    /// How a request is answered.
    enum Route: Sendable {
        /// Answered at once, on the connection's event loop.
        case now(DaemonMessage)
        /// Answered when the work finishes (it runs as a task, off the event loop).
        case later(@Sendable () async -> DaemonMessage)
    }

    let context: DaemonContext
    private let codec = LineCodec()

    init(context: DaemonContext) {
        self.context = context
    }

    /// Decides the reply to one line from a principal.
    func route(_ line: ByteBuffer, from principal: Principal, connection: ConnectionIdentity, logger: Logger) -> Route {
        let bytes = Array(line.readableBytesView)
        let message: ClientMessage
        let className: String
        do {
            let received = try codec.decode(ReceivedClientMessage.self, from: bytes)
            (message, className) = (received.message, received.className)
        } catch {
            logger.notice("bad request: \(error)")
            return .now(DaemonMessage(id: Self.lenientID(in: bytes), .error(error)))
        }
        logger.trace("\(className)")
        let id = message.id
        // Who may send what is decided here, once, for every request (``RequestAccess``).
        if let refusal = principal.refusal(of: message, named: className) {
            logger.warning("refused \(className) from \(principal): \(message.body.access.rawValue)-only")
            return .now(DaemonMessage(id: id, .error(refusal)))
        }
        // An app's request before its CHECKIN is refused at once, on the event loop.
        if message.body.access == .app, connection.bundle == nil, !message.body.isCheckIn {
            let error = ProtocolError(.notCheckedIn, "\(className) needs a CHECKIN first")
            return .now(DaemonMessage(id: id, .error(error)))
        }
        let requester = Requester(bundle: connection.bundle, request: className)
        let apps = context.apps
        let capabilities = context.capabilities
        func later(_ work: @escaping @Sendable () async throws -> DaemonMessage.Body) -> Route {
            .later { DaemonMessage(id: id, await Self.reply(work)) }
        }
        switch message.body.domain {
        case .daemon(let request): return routeToDaemon(request, id: id, from: principal, connection: connection)
        case .apps(let request):
            return routeToCore(request, id: id, from: principal, as: requester, connection: connection)
        case .location(let request):
            return later { try await capabilities.location.handle(request, from: requester, in: apps) }
        case .audio(let request):
            return later { try await capabilities.audio.handle(request, from: requester, in: apps) }
        case .scheduling(let request):
            return later { try await capabilities.scheduling.handle(request, from: requester, in: apps) }
        case .transfers(let request):
            return later { try await capabilities.transfers.handle(request, from: requester, in: apps) }
        case .notifications(let request):
            return later { try await capabilities.notifications.handle(request, from: requester, in: apps) }
        case .sharing(let request):
            return later { try await capabilities.sharing.handle(request, from: requester, in: apps) }
        }
    }

    /// The body, or the `ERROR` its work threw.
    static func reply(_ work: () async throws -> DaemonMessage.Body) async -> DaemonMessage.Body {
        do {
            return try await work()
        } catch let error as ProtocolError {
            return .error(error)
        } catch {
            return .error(ProtocolError(.failed, "\(error)"))
        }
    }

    /// The `id` of a request that failed to decode, so even its error can be matched up.
    private static func lenientID(in bytes: [UInt8]) -> MessageID? {
        struct OnlyID: Decodable { var id: MessageID? }
        return (try? JSONDecoder().decode(OnlyID.self, from: Data(bytes)))?.id
    }
}
