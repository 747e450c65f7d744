import BackgrounderAppCore
import BackgrounderCore
import BackgrounderProtocol

extension RequestRouter {
    /// Requests the app core answers: a person's actions and `ps`, an app's check-in and
    /// background tasks, grants and consent.
    func routeToCore(
        _ request: ClientMessage.AppsRequest, id: MessageID?, from principal: Principal, as requester: Requester,
        connection: ConnectionIdentity
    ) -> Route {
        let apps = context.apps
        func later(_ work: @escaping @Sendable () async throws -> DaemonMessage.Body) -> Route {
            .later { DaemonMessage(id: id, await Self.reply(work)) }
        }
        switch request {
        case .open(let request): return later { .done(try await apps.open(request)) }
        case .home: return later { .done(await apps.home()) }
        case .lock: return later { .done(await apps.lock()) }
        case .unlock: return later { .done(try await apps.unlock()) }
        case .quit(let app): return later { .done(try await apps.quit(app.bundle)) }
        case .ps: return later { .apps(await apps.list()) }
        case .capabilities:
            let context = self.context
            return later { .capabilities(try await context.capabilityRows()) }
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
            return later { .done(await apps.memoryPressure(pressure)) }
        case .beginTask(let task):
            return later { .task(try await apps.beginTask(try requester.app(), named: task.name)) }
        case .endTask(let task): return later { .done(await apps.endTask(try requester.app(), task: task.task)) }
        case .authorize(let grant): return later { .done(try await apps.authorize(grant)) }
        case .prompts: return later { .prompts(await apps.waitingPrompts()) }
        case .answer(let answer): return later { .done(try await apps.answer(answer)) }
        case .permissions(let query): return later { .permissions(try apps.permissions(query.bundle)) }
        }
    }
}

extension ClientMessage.Body {
    /// Whether this is `CHECKIN`, the one app request a connection sends before checking in.
    var isCheckIn: Bool {
        if case .checkIn = self { true } else { false }
    }
}
