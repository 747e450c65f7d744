import BackgrounderCore
import BackgrounderProtocol

extension RequestRouter {
    /// Requests the daemon's composition answers: its status, its bundles, and what a person
    /// hands over (files, shares, simulated fixes), which need the daemon's parts together.
    func routeToDaemon(
        _ request: ClientMessage.DaemonRequest, id: MessageID?, from principal: Principal,
        connection: ConnectionIdentity
    ) -> Route {
        let context = self.context
        switch request {
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
            return .later { DaemonMessage(id: id, await context.importFiles(request)) }
        case .reload:
            let registry = context.registry
            return .later { DaemonMessage(id: id, .reload(await registry.reload())) }
        case .adoptBundle(let app):
            let apps = context.apps
            return .later { DaemonMessage(id: id, await Self.reply { .done(try await apps.adoptBundle(app.bundle)) }) }
        case .share(let request):
            return .later { DaemonMessage(id: id, await context.share(request)) }
        case .followNotifications(let request):
            if let bundle = request.bundle, let problem = BundleIdentifierRules.problem(with: bundle.rawValue) {
                return .now(
                    DaemonMessage(
                        id: id, .error(ProtocolError(.badRequest, "NOTIFICATIONS_FOLLOW: bundle: \(problem)"))))
            }
            context.capabilities.notificationFeed.follow(connection.channel, bundle: request.bundle)
            let whose = request.bundle?.rawValue ?? "every app"
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
        }
    }
}
