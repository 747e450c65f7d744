import BackgrounderCore
import BackgrounderProtocol
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

    /// Decides the reply to one line from a peer.
    func route(_ line: ByteBuffer, from peer: PeerCredentials, connection: ConnectionIdentity, logger: Logger) -> Route
    {
        let bytes = Array(line.readableBytesView)
        let message: ClientMessage
        do {
            message = try codec.decode(ClientMessage.self, from: bytes)
        } catch {
            logger.notice("bad request: \(error)")
            return .now(DaemonMessage(id: Self.lenientID(in: bytes), .error(error)))
        }
        logger.trace("\(message.className)")
        let id = message.id
        switch message.body {
        case .hello(let hello):
            guard hello.protocol == ProtocolVersion.major else {
                let error = ProtocolError(
                    .versionMismatch,
                    "this daemon speaks protocol \(ProtocolVersion.major), the client \(hello.protocol)"
                )
                return .now(DaemonMessage(id: id, .error(error)))
            }
            return .now(DaemonMessage(id: id, .hello(HelloReply(pid: peer.pid, uid: peer.uid))))
        case .status:
            return .now(DaemonMessage(id: id, .status(context.status())))
        case .bundles:
            return .now(DaemonMessage(id: id, .bundles(context.registry.list())))
        case .reload:
            let registry = context.registry
            return .later { DaemonMessage(id: id, .reload(await registry.reload())) }
        default:
            return routeToApps(message, from: peer, connection: connection)
        }
    }

    /// Requests the app manager answers: user actions, `ps`, and apps' own requests.
    private func routeToApps(_ message: ClientMessage, from peer: PeerCredentials, connection: ConnectionIdentity)
        -> Route
    {
        let apps = context.apps
        let id = message.id
        func later(_ work: @escaping @Sendable () async throws -> DaemonMessage.Body) -> Route {
            .later { DaemonMessage(id: id, await Self.reply(work)) }
        }
        func asApp(_ work: @escaping @Sendable (String) async throws -> DaemonMessage.Body) -> Route {
            guard let bundle = connection.bundle else {
                return .now(
                    DaemonMessage(id: id, .error(ProtocolError(.failed, "\(message.className) needs a CHECKIN first"))))
            }
            return .later { DaemonMessage(id: id, await Self.reply { try await work(bundle) }) }
        }
        switch message.body {
        case .open(let app): return later { .done(try await apps.open(app.bundle)) }
        case .home: return later { .done(await apps.home()) }
        case .lock: return later { .done(await apps.lock()) }
        case .unlock: return later { .done(try await apps.unlock()) }
        case .quit(let app): return later { .done(try await apps.quit(app.bundle)) }
        case .ps: return later { .apps(await apps.list()) }
        case .checkIn(let checkIn):
            return later {
                let reply = try await apps.checkIn(checkIn.bundle, peer: peer, channel: connection.channel)
                connection.bundle = checkIn.bundle
                return .checkedIn(reply)
            }
        case .memoryPressure(let pressure):
            return later { .done(await apps.relieveMemoryPressure(critical: pressure.critical ?? false)) }
        case .wake(let wake): return later { .done(try await apps.wake(wake.bundle, for: wake.reason)) }
        case .authorize(let grant):
            // A grant is a person's decision: an app may not make it for itself.
            return later {
                guard connection.bundle == nil, await !apps.isAppProcess(peer.pid) else {
                    throw ProtocolError(.failed, "AUTHORIZE comes from a person (`bgctl authorize`), not from an app")
                }
                return .done(try await apps.authorize(grant))
            }
        case .regions(let query) where query.bundle != nil:
            return later { .regions(try await apps.monitoredRegions(query.bundle!)) }
        case .beginTask(let task): return asApp { .task(await apps.beginTask($0, named: task.name)) }
        case .endTask(let task): return asApp { .done(await apps.endTask($0, task: task.task)) }
        case .requestAuthorization(let request):
            return asApp { bundle in
                .authorization(try await apps.requestLocationAuthorization(bundle, level: request.level))
            }
        case .locationUpdates(let subscription):
            return asApp { bundle in .done(try await apps.setLocationSubscription(bundle, subscription)) }
        case .locationReady: return asApp { .done(await apps.locationReady($0)) }
        case .locationAck(let ack): return asApp { .done(await apps.acknowledgeLocations($0, through: ack.through)) }
        case .startMonitoring(let request):
            return asApp { bundle in .done(try await apps.startMonitoring(bundle, request.region)) }
        case .stopMonitoring(let region):
            return asApp { .done(await apps.stopMonitoring($0, region: region.identifier)) }
        case .requestState(let region):
            return asApp { bundle in
                .regionState(try await apps.regionState(bundle, region: region.identifier))
            }
        case .regions: return asApp { bundle in .regions(try await apps.monitoredRegions(bundle)) }
        case .audioSession(let request): return asApp { .done(try await apps.setAudioSession($0, request)) }
        case .openAudioStream(let request):
            return asApp { bundle in .audioStream(try await apps.openAudioStream(bundle, peer: peer.pid, request)) }
        case .audioStreamControl(let control): return asApp { .done(try await apps.controlAudioStream($0, control)) }
        case .nowPlaying(let info): return asApp { .done(await apps.setNowPlaying($0, info)) }
        case .remoteCommand(let request): return later { .done(try await apps.remoteCommand(request)) }
        case .audio(let query): return later { .audioStatus(await apps.audioStatus(query)) }
        case .hello, .status, .bundles, .reload:
            preconditionFailure("answered by route(_:from:connection:logger:)")
        }
    }

    /// The body, or the `ERROR` its work threw.
    private static func reply(_ work: () async throws -> DaemonMessage.Body) async -> DaemonMessage.Body {
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
