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
        do {
            message = try codec.decode(ClientMessage.self, from: bytes)
        } catch {
            logger.notice("bad request: \(error)")
            return .now(DaemonMessage(id: Self.lenientID(in: bytes), .error(error)))
        }
        logger.trace("\(message.className)")
        let id = message.id
        // Who may send what is decided here, once, for every request (``RequestAccess``).
        if let refusal = principal.refusal(of: message) {
            logger.warning("refused \(message.className) from \(principal): \(message.body.access.rawValue)-only")
            return .now(DaemonMessage(id: id, .error(refusal)))
        }
        switch message.body {
        case .hello(let hello):
            guard hello.protocol == ProtocolVersion.major else {
                let error = ProtocolError(
                    .versionMismatch,
                    "this daemon speaks protocol \(ProtocolVersion.major), the client \(hello.protocol)"
                )
                return .now(DaemonMessage(id: id, .error(error)))
            }
            return .now(DaemonMessage(id: id, .hello(principal.helloReply)))
        case .status:
            return .now(DaemonMessage(id: id, .status(context.status())))
        case .bundles:
            return .now(DaemonMessage(id: id, .bundles(context.registry.list())))
        case .dataDirectory(let app):
            return .now(DaemonMessage(id: id, context.dataDirectory(of: app.bundle)))
        case .importFiles(let request):
            let context = self.context
            return .later { DaemonMessage(id: id, await context.importFiles(request)) }
        case .reload:
            let registry = context.registry
            return .later { DaemonMessage(id: id, .reload(await registry.reload())) }
        case .adoptBundle(let app):
            let apps = context.apps
            return .later { DaemonMessage(id: id, await Self.reply { .done(try await apps.adoptBundle(app.bundle)) }) }
        case .share(let request):
            let context = self.context
            return .later { DaemonMessage(id: id, await context.share(request)) }
        case .followNotifications(let request):
            if let bundle = request.bundle, let problem = BundleIdentifierRules.problem(with: bundle) {
                return .now(
                    DaemonMessage(
                        id: id, .error(ProtocolError(.badRequest, "NOTIFICATIONS_FOLLOW: bundle: \(problem)"))))
            }
            guard let feed = context.notificationFeed else {
                return .now(
                    DaemonMessage(id: id, .error(ProtocolError(.unavailable, "this daemon has no notification feed"))))
            }
            feed.follow(connection.channel, bundle: request.bundle)
            let whose = request.bundle ?? "every app"
            return .now(
                DaemonMessage(id: id, .done(Done(detail: "following \(whose)'s notifications as they are delivered"))))
        case .simulateLocation(let request):
            if let problem = request.problem {
                return .now(DaemonMessage(id: id, .error(ProtocolError(.badRequest, "SIMULATE_LOCATION: \(problem)"))))
            }
            context.location.simulate(request.fixes)
            let count = request.fixes.count
            return .now(
                DaemonMessage(
                    id: id,
                    .done(Done(detail: "\(count) fix\(count == 1 ? "" : "es") given to the apps as the receiver's"))))
        default:
            return routeToApps(message, from: principal, connection: connection)
        }
    }

    /// Requests the app manager answers: user actions, `ps`, and apps' own requests. The
    /// principal is already known to be allowed to send `message`.
    private func routeToApps(_ message: ClientMessage, from principal: Principal, connection: ConnectionIdentity)
        -> Route
    {
        let apps = context.apps
        let (location, audio, scheduling) = (
            context.capabilities.location, context.capabilities.audio, context.capabilities.scheduling
        )
        let (transfers, notifications, sharing) = (
            context.capabilities.transfers, context.capabilities.notifications, context.capabilities.sharing
        )
        let id = message.id
        func later(_ work: @escaping @Sendable () async throws -> DaemonMessage.Body) -> Route {
            .later { DaemonMessage(id: id, await Self.reply(work)) }
        }
        func asApp(_ work: @escaping @Sendable (String) async throws -> DaemonMessage.Body) -> Route {
            guard let bundle = connection.bundle else {
                return .now(
                    DaemonMessage(
                        id: id, .error(ProtocolError(.notCheckedIn, "\(message.className) needs a CHECKIN first"))))
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
            guard case .app(let launch) = principal, checkIn.bundle == launch.bundle else {
                let error = ProtocolError(
                    .notPermitted, "this connection belongs to \(principal); an app can check in only as itself")
                return .now(DaemonMessage(id: id, .error(error)))
            }
            return later {
                let reply = try await apps.checkIn(launch, channel: connection.channel)
                connection.bundle = launch.bundle
                return .checkedIn(reply)
            }
        case .memoryPressure(let pressure):
            return later { .done(await apps.relieveMemoryPressure(critical: pressure.critical ?? false)) }
        case .wake(let wake): return later { .done(try await scheduling.wake(wake, in: apps)) }
        case .push(let push): return later { .pushed(try await scheduling.push(push, in: apps)) }
        case .tasks(let query): return later { .schedule(await scheduling.schedule(query, in: apps)) }
        case .simulateTask(let request):
            return later { .done(try await scheduling.simulateTask(request, in: apps)) }
        case .expireTask(let request):
            return later { .done(try await scheduling.expireTask(request, in: apps)) }
        case .setFetchInterval(let request):
            return asApp { bundle in
                .done(try await scheduling.setFetchInterval(bundle, request.interval, in: apps))
            }
        case .complete(let completion):
            return asApp { bundle in .done(try await scheduling.complete(bundle, completion, in: apps)) }
        case .registerTask(let registration):
            return asApp { bundle in
                .done(try await scheduling.register(bundle, task: registration.identifier, in: apps))
            }
        case .submitTask(let submission):
            return asApp { bundle in .done(try await scheduling.submit(bundle, submission, in: apps)) }
        case .cancelTasks(let cancellation):
            return asApp { bundle in
                .done(await scheduling.cancel(bundle, task: cancellation.identifier, in: apps))
            }
        case .pendingTasks:
            return asApp { bundle in
                .taskRequests(await scheduling.pending(bundle))
            }
        case .registerPush:
            return asApp { bundle in
                .pushToken(try await scheduling.registerPush(bundle))
            }
        case .unregisterPush:
            return asApp { bundle in
                .done(await scheduling.unregisterPush(bundle))
            }
        case .authorize(let grant): return later { .done(try await apps.authorize(grant)) }
        case .prompts: return later { .prompts(await apps.waitingPrompts()) }
        case .answer(let answer): return later { .done(try await apps.answer(answer)) }
        case .regions(let query) where query.bundle != nil:
            return later { .regions(try await location.monitoredRegions(query.bundle!, in: apps)) }
        case .beginTask(let task): return asApp { .task(try await apps.beginTask($0, named: task.name)) }
        case .endTask(let task): return asApp { .done(await apps.endTask($0, task: task.task)) }
        case .requestAuthorization(let request):
            return asApp { bundle in
                .authorization(
                    try await location.requestAuthorization(bundle, level: request.level, in: apps))
            }
        case .locationUpdates(let subscription):
            return asApp { bundle in
                .done(try await location.setSubscription(bundle, subscription, in: apps))
            }
        case .locationReady: return asApp { bundle in .done(await location.ready(bundle, in: apps)) }
        case .locationAck(let ack):
            return asApp { bundle in
                .done(try await location.acknowledge(bundle, through: ack.through, in: apps))
            }
        case .startMonitoring(let request):
            return asApp { bundle in
                .done(try await location.startMonitoring(bundle, request.region, in: apps))
            }
        case .stopMonitoring(let region):
            return asApp { bundle in
                .done(
                    await location.stopMonitoring(bundle, region: region.identifier))
            }
        case .requestState(let region):
            return asApp { bundle in
                .regionState(
                    try await location.regionState(bundle, region: region.identifier))
            }
        case .regions:
            return asApp { bundle in .regions(try await location.monitoredRegions(bundle, in: apps)) }
        case .audioSession(let request):
            return asApp { bundle in .done(try await audio.setSession(bundle, request, in: apps)) }
        case .openAudioStream(let request):
            return asApp { bundle in .audioStream(try await audio.openStream(bundle, request, in: apps)) }
        case .audioStreamControl(let control):
            return asApp { bundle in
                .done(
                    try await audio.controlStream(bundle, control, in: apps))
            }
        case .nowPlaying(let info):
            return asApp { bundle in .done(await audio.setNowPlaying(bundle, info, in: apps)) }
        case .remoteCommand(let request):
            return later { .done(try await audio.remoteCommand(request, in: apps).value()) }
        case .remoteCommandStatus(let report):
            return asApp { bundle in .done(try await audio.answer(bundle, report, in: apps)) }
        case .audio(let query): return later { .audioStatus(await audio.status(query, in: apps)) }
        case .permissions(let query): return later { .permissions(try apps.permissions(query.bundle)) }
        case .createTransfer(let submission):
            return asApp { bundle in .transfer(try await transfers.create(bundle, submission, in: apps)) }
        case .cancelTransfer(let reference):
            return asApp { bundle in
                .done(try await transfers.cancel(bundle, reference.transfer, in: apps))
            }
        case .transferSession(let request):
            return asApp { bundle in
                .transferList(try await transfers.attach(bundle, session: request.session, in: apps))
            }
        case .acknowledgeTransfer(let reference):
            return asApp { bundle in
                .done(try await transfers.acknowledge(bundle, reference.transfer, in: apps))
            }
        case .transfers(let query):
            return later { .transferList(try await transfers.list(query, in: apps)) }
        case .requestMediaLibraryAuthorization:
            return asApp { bundle in
                .mediaLibrary(try await sharing.requestLibraryAuthorization(bundle, in: apps))
            }
        case .requestNotificationAuthorization(let request):
            return asApp { bundle in
                .notificationAuthorization(
                    await notifications.requestAuthorization(bundle, request, in: apps))
            }
        case .addNotification(let request):
            return asApp { bundle in .done(try await notifications.add(bundle, request, in: apps)) }
        case .listNotifications(let query):
            return asApp { bundle in
                .notifications(
                    await notifications.list(bundle, query.list))
            }
        case .removeNotifications(let removal):
            return asApp { bundle in
                .done(try await notifications.remove(bundle, removal, in: apps))
            }
        case .notificationPresentation(let presentation):
            return asApp { bundle in
                .done(try await notifications.answer(bundle, presentation, in: apps))
            }
        case .notifications(let query):
            return later { .notifications(try await notifications.list(person: query.bundle, in: apps)) }
        case .activateNotification(let activation):
            return later { .done(try await notifications.activate(activation, in: apps)) }
        case .unshare(let request):
            return later { .shared(try await sharing.unshare(request, in: apps)) }
        case .shares(let app):
            return later { .shared(await sharing.list(app.bundle)) }
        case .hello, .status, .bundles, .reload, .dataDirectory, .importFiles, .adoptBundle, .share, .simulateLocation,
            .followNotifications:
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
