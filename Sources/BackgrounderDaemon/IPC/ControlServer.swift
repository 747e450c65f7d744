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
    private let personCheck: PersonCheck
    private let connections = Locked<[ObjectIdentifier: Connection]>([:])
    private let waitingForRoom = Atomic<Int>(0)

    /// How long a peer may leave replies unread before it is disconnected.
    static let stalledReaderTimeout: TimeAmount = .seconds(5)
    /// Replies past the high mark make a connection unwritable: the daemon stops reading its
    /// requests until they drain (``StalledReaderHandler``).
    static let writeBufferWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 64 * 1024, high: 256 * 1024)
    /// Connections open at once through the sockets, in all (`--max-connections`). The
    /// connection the daemon hands each app it launches is not counted: there is one per
    /// running app, made by the daemon, so the apps a person installed bound them; counting
    /// them let 512 running apps leave the 513th unable to check in and a person's `bgctl`
    /// refused (found by scripts/bench-scale.sh).
    private var maximumConnections: Int { context.configuration.maximumConnections }
    /// Connections open at once for one principal (one person's uid, one app launch, or
    /// every unverified peer together).
    static let maximumConnectionsPerPrincipal = 64
    /// How long a connection over a limit waits for room before it is refused.
    static let waitForRoom: TimeAmount = .seconds(1)
    /// Connections that may wait for room at once; past this, one over a limit is refused at once.
    static let maximumWaitingForRoom = 16

    /// Told once the socket is bound and serving.
    private let onListening: @Sendable () -> Void

    init(
        context: DaemonContext, personCheck: PersonCheck, appChannels: AppChannels, logger: Logger,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onListening: @escaping @Sendable () -> Void = {}
    ) {
        self.onListening = onListening
        self.context = context
        self.router = RequestRouter(context: context)
        self.personCheck = personCheck
        self.logger = logger
        self.group = group
        appChannels.serve(writeBufferWaterMark: Self.writeBufferWaterMark) { [self] channel, launch in
            self.configure(channel, principal: .app(launch), handedAtLaunch: true)
        }
    }

    func run() async throws {
        let path = context.configuration.socketPath
        let bootstrap = makeBootstrap { [self] peer in self.personCheck.principal(of: peer) }
        let server: any Channel
        let activated = SocketActivation.passedDescriptor
        if let descriptor = activated {
            // systemd made the socket (backgrounderd.socket) with its mode, and removes it.
            server = try await bootstrap.withBoundSocket(descriptor).get()
            logger.info("listening on the socket systemd passed (descriptor \(descriptor))")
        } else {
            server = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false).get()
            guard chmod(path, 0o600) == 0 else {
                server.close(promise: nil)
                throw DaemonError(.socket, path: path, "cannot restrict the socket to its owner (chmod 0600)")
            }
            logger.info("listening on \(path)")
        }
        let appServer = await serveAppSocket(beside: path)
        onListening()
        defer {
            if activated == nil { unlink(path) }
            unlink(DefaultPaths.appSocket(forControlSocket: path))
        }

        try await withGracefulShutdownHandler {
            try await server.closeFuture.get()
        } onGracefulShutdown: { [self] in
            server.close(promise: nil)
            appServer?.close(promise: nil)
            // Clients may stay connected as long as they like; shutdown does not wait on them.
            for connection in self.connections.withLock({ Array($0.values) }) {
                connection.channel.close(promise: nil)
            }
        }
    }

    /// A server bootstrap whose connections speak as `principal` decides for the peer.
    private func makeBootstrap(_ principal: @escaping @Sendable (PeerProcess?) -> Principal) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            // A script that writes a request and closes its side (`echo ... | socat`) still
            // gets its reply: end of input ends the requests, not the connection.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: Self.writeBufferWaterMark)
            .childChannelInitializer { [self] channel in
                // Who the peer is, decided once, now: a process that connects and exits, or
                // passes the socket on, leaves the connection what it was at connect time.
                PeerProcess.of(channel).flatMap { peer in
                    self.configure(channel, principal: principal(peer))
                }
            }
    }

    /// Serves the app socket: open to every uid (apps may run under their own), but a peer
    /// there speaks only as the app launch it is the lead process of (an app reconnecting
    /// after a restart); anyone else is refused every request but `HELLO`.
    /// - Returns: The socket, or `nil` (said in the log) when it cannot be made: apps then
    ///   cannot come back after a restart, and everything else works.
    private func serveAppSocket(beside control: String) async -> (any Channel)? {
        let path = DefaultPaths.appSocket(forControlSocket: control)
        unlink(path)
        do {
            let server = try await makeBootstrap { [self] peer in
                guard let peer, let launch = self.personCheck.supervisor.launch(of: peer) else {
                    return .untrusted("the app socket is only for an app's lead process reconnecting")
                }
                return .app(launch)
            }
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: false).get()
            chmod(path, 0o666)
            return server
        } catch {
            logger.warning("cannot serve the app socket \(path): \(error); apps cannot reconnect after a restart")
            return nil
        }
    }

    /// An open connection: who speaks on it, and whether the daemon made it for an app's launch.
    private struct Connection: Sendable {
        var channel: any Channel
        var principal: Principal
        var handedAtLaunch: Bool
    }

    private func configure(
        _ channel: any Channel, principal: Principal, handedAtLaunch: Bool = false
    ) -> EventLoopFuture<Void> {
        var connectionLogger = logger
        switch principal {
        case .person(let uid, let pid):
            connectionLogger[metadataKey: "peer.uid"] = "\(uid)"
            connectionLogger[metadataKey: "peer.pid"] = "\(pid)"
        case .app(let launch):
            connectionLogger[metadataKey: "bundle"] = "\(launch.bundle)"
            connectionLogger[metadataKey: "app.pid"] = "\(launch.pid)"
        case .untrusted(let why): connectionLogger[metadataKey: "peer"] = "unverified: \(why)"
        }
        let key = ObjectIdentifier(channel)
        let connection = Connection(channel: channel, principal: principal, handedAtLaunch: handedAtLaunch)
        return admit(key, connection, logger: connectionLogger).flatMapThrowing {
            [self, connectionLogger] in
            channel.closeFuture.whenComplete { [self] _ in
                _ = self.connections.withLock { $0.removeValue(forKey: key) }
            }
            try channel.pipeline.syncOperations.addHandlers(
                StalledReaderHandler(timeout: Self.stalledReaderTimeout, logger: connectionLogger),
                ByteToMessageHandler(LineFrameDecoder(maximumLength: WireLimits.maximumLineLength)),
                ControlHandler(router: router, principal: principal, context: context, logger: connectionLogger)
            )
        }
    }

    /// Counts a new connection in. At a limit it waits a moment before refusing: connections
    /// whose peers already hung up (a script's burst of short connections) still count until
    /// their event loops notice, which under load can take a while.
    private func admit(_ key: ObjectIdentifier, _ connection: Connection, logger: Logger) -> EventLoopFuture<Void> {
        let channel = connection.channel
        guard let refusal = count(key, connection) else {
            return channel.eventLoop.makeSucceededVoidFuture()
        }
        // Waiting holds a descriptor, so only a few connections may wait at once.
        guard waitingForRoom.add(1, ordering: .relaxed).newValue <= Self.maximumWaitingForRoom else {
            waitingForRoom.subtract(1, ordering: .relaxed)
            return refuse(refusal, channel: channel, logger: logger)
        }
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let deadline = NIODeadline.now() + Self.waitForRoom
        channel.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(50), delay: .milliseconds(50)) {
            [self] task in
            let refusal = self.count(key, connection)
            // Not `channel.isActive`: the channel is not registered, so never active, until
            // this initializer's future completes; that check ended every wait at the first
            // look. A peer that hangs up meanwhile is seen once the connection is admitted.
            guard refusal != nil, NIODeadline.now() < deadline else {
                task.cancel()
                self.waitingForRoom.subtract(1, ordering: .relaxed)
                if let refusal {
                    promise.completeWith(self.refuse(refusal, channel: channel, logger: logger))
                } else {
                    promise.succeed()
                }
                return
            }
        }
        return promise.futureResult
    }

    private func refuse(_ refusal: String, channel: any Channel, logger: Logger) -> EventLoopFuture<Void> {
        logger.warning("refused a connection: \(refusal)")
        return channel.eventLoop.makeFailedFuture(
            DaemonError(.socket, path: context.configuration.socketPath, refusal))
    }

    /// Counts a new connection in, or says which limit it would pass.
    private func count(_ key: ObjectIdentifier, _ connection: Connection) -> String? {
        connections.withLock { connections in
            if !connection.handedAtLaunch {
                let open = connections.values.count { !$0.handedAtLaunch }
                guard open < maximumConnections else {
                    return "\(maximumConnections) connections are open, the most the daemon serves at once"
                }
            }
            let principal = connection.principal
            let same = connections.values.count { Self.sameLimit($0.principal, principal) }
            guard same < Self.maximumConnectionsPerPrincipal else {
                return "\(principal) has \(same) connections open, the most one may hold"
            }
            connections[key] = connection
            return nil
        }
    }

    /// Whether two principals share one per-principal limit.
    private static func sameLimit(_ one: Principal, _ other: Principal) -> Bool {
        switch (one, other) {
        case (.person(let a, _), .person(let b, _)): a == b
        case (.app(let a), .app(let b)): a.bundle == b.bundle
        case (.untrusted, .untrusted): true
        default: false
        }
    }
}
