import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderBundles
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
public import Logging
import ServiceLifecycle

/// `backgrounderd`: every service of the daemon in one `ServiceGroup`, shut down gracefully
/// on SIGTERM or SIGINT.
public struct Daemon: Sendable {
    private let configuration: DaemonConfiguration
    private let logger: Logger

    /// Creates the daemon.
    /// - Parameters:
    ///   - configuration: Paths and servers.
    ///   - logger: The root logger; services add their own metadata.
    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The plug-in policy named by `--policy`, or the standard one, saying why when a plug-in
    /// cannot be used: a broken plug-in must not keep the daemon from serving.
    private func choosePolicy(_ catalog: BundleCatalog) -> any BackgroundPolicy {
        // The standard policy with the scheduling numbers of `--scheduling`; a plug-in starts
        // from it too.
        var standard = configuration.policy
        standard.scheduling = configuration.scheduling
        guard let identifier = configuration.policyBundle else { return standard }
        do {
            let policy = try PluginPolicy.load(identifier, from: catalog, standard: standard, logger: logger)
            let numbers = policy.numbers
            logger.info(
                "loaded policy plug-in \(identifier): task budget \(numbers.taskBudget), grace \(numbers.suspendGrace), expiration warning \(numbers.expirationWarning)"
            )
            return policy
        } catch {
            logger.error("policy plug-in not used: \(error); using the standard policy")
            return standard
        }
    }

    private func suspensionMechanism() throws -> any SuspensionMechanism {
        switch configuration.suspension {
        case .signals:
            return SignalFreezer()
        case .cgroup:
            return try CgroupFreezer.discover(stateDirectory: configuration.stateDirectory).get()
        case .auto:
            switch CgroupFreezer.discover(stateDirectory: configuration.stateDirectory) {
            case .success(let freezer): return freezer
            case .failure(let reason):
                logger.warning("no usable cgroup v2 freezer (\(reason)); suspending apps with SIGSTOP")
                return SignalFreezer()
            }
        }
    }

    /// Ends what an earlier run left in app cgroups and this run did not adopt.
    private func clearLeftovers(_ mechanism: any SuspensionMechanism, keeping adopted: Set<String>) {
        guard let freezer = mechanism as? CgroupFreezer else { return }
        for identifier in freezer.clearLeftovers(keeping: adopted) {
            logger.warning("ended \(identifier), left running by an earlier run and not adopted")
        }
    }

    /// The sockets made beside the control socket are longer than it: a path that fits but
    /// leaves them too long is refused by the name the person typed, before anything is made.
    static func checkSocketLength(_ control: String) throws {
        let longest = AudioSocketServer.path(forControlSocket: control)
        let excess = longest.utf8.count - DaemonSocket.maximumPathLength
        guard excess > 0 else { return }
        throw DaemonError(
            .socket, path: control,
            "--socket is \(control.utf8.count) bytes, too long: the audio socket beside it (\(longest.split(separator: "/").last ?? "")) must fit a Unix socket's \(DaemonSocket.maximumPathLength) bytes; choose a path at least \(excess) bytes shorter"
        )
    }

    /// Runs until SIGTERM or SIGINT.
    /// - Throws: ``DaemonError`` when the socket or state directory cannot be used, or the
    ///   first error a service fails with.
    public func run() async throws {
        // Whatever the daemon creates is its own unless it says otherwise (the state
        // database and its WAL, logs): apps under other uids pass through its directories.
        umask(0o077)
        try Self.checkSocketLength(configuration.socketPath)
        let sandbox = AppSandbox.make(
            configuration.sandbox, processLimit: configuration.limits.processes,
            memoryLimit: configuration.limits.memory, sharedPidNamespace: configuration.sharedPidNamespace,
            logger: logger)
        // Apps under uids of their own pass through these to the audio socket and their
        // data directory (0711 when created here; an existing one is checked, not changed).
        try PrivateDirectory.prepare(configuration.stateDirectory, purpose: "--state-dir", mode: sandbox.directoryMode)
        // The lock comes next: a second daemon must not touch the first one's socket,
        // database or cgroups before it is refused.
        let lock = try StateDirectoryLock(directory: configuration.stateDirectory)
        let socketDirectory = try ControlSocket.prepare(configuration.socketPath, directoryMode: sandbox.directoryMode)
        // A default bundle directory that does not exist holds nothing apps need to reach.
        let bundleDirectories = configuration.bundleDirectories.filter {
            !configuration.optionalBundleDirectories.contains($0) || FileManager.default.fileExists(atPath: $0)
        }
        sandbox.warnIfUnreachable(
            [socketDirectory, configuration.stateDirectory] + bundleDirectories, logger: logger)
        let store = try StateStore(
            directory: configuration.stateDirectory, reserveBytes: configuration.stateReserveBytes)
        if let note = store.reserve.status.note { logger.warning("state directory: \(note)") }
        if let aside = store.setAside {
            logger.error(
                "the state database \(store.path) is corrupt (\(aside.reason)); moved it to \(aside.path) and started a fresh one: grants, subscriptions, queued events, task requests and notifications start empty (the moved file keeps what could be read)"
            )
        }
        // A database made by an earlier release under a looser umask; SQLite gives the WAL
        // and shared-memory files the database's own mode.
        for file in [store.path, store.path + "-wal", store.path + "-shm"] { chmod(file, 0o600) }
        let run = try store.beginRun(pid: getpid(), at: Date())
        if run.previousEndedUncleanly {
            logger.warning("the previous run did not stop cleanly; state restored from \(store.path)")
        }

        if let bootID = BootID.read(configuration.bootIDPath),
            (try? store.clearForceQuitAfterReboot(bootID: bootID)) == true
        {
            logger.notice("the machine rebooted since apps were force-quit; they may be relaunched for events again")
        }

        let mechanism = try suspensionMechanism()
        let volumes = DataVolumes.make(
            stateDirectory: configuration.stateDirectory,
            bytes: configuration.appDataQuotaBytes
                ?? DataVolumes.defaultBytes(stateDirectory: configuration.stateDirectory),
            ownUids: sandbox.appUsers != nil, reapsOrphans: mechanism is SignalFreezer, logger: logger)
        let retirement = IdentityRetirement(
            store: store, directories: AppDirectories(stateDirectory: configuration.stateDirectory),
            volumes: try? volumes.get(), logger: logger)
        retirement.finishInterrupted()
        let registry = BundleRegistry(
            directories: configuration.bundleDirectories,
            optionalDirectories: configuration.optionalBundleDirectories, store: store, retirement: retirement,
            logger: logger)
        await registry.reload()
        let supervisor = try Supervisor(
            mechanism: mechanism,
            sandbox: sandbox,
            stateDirectory: configuration.stateDirectory,
            socketPath: configuration.socketPath,
            store: store,
            logLimit: configuration.limits.appLogBytes,
            volumes: volumes,
            logger: logger
        )
        let controllers: CgroupControllers
        if let freezer = mechanism as? CgroupFreezer, let mount = CgroupFreezer.cgroup2Mount(),
            let own = CgroupFreezer.cgroup(ofProcess: nil)
        {
            controllers = CgroupControllers.enable(
                base: freezer.base, own: (mount + own).replacingOccurrences(of: "//", with: "/"))
        } else {
            controllers = .none
        }
        let resources = "\(controllers.summary); oom_score_adj by state"
        logger.info("resources: \(resources)")
        let policy = choosePolicy(registry.catalog)
        let sharedFiles = SharedFiles(
            try store.sharedFiles(), appDirectories: FileIdentity.of(supervisor.appDirectories))
        let audio = try AudioService(
            server: configuration.pulseServer,
            socketPath: AudioSocketServer.path(forControlSocket: configuration.socketPath),
            identify: { supervisor.owner(of: $0) },
            sharedFiles: sharedFiles,
            logger: logger
        )
        let appChannels = AppChannels(logger: logger)
        // The session and system buses, optional: without them the rest runs on.
        let desktop = try DesktopBus(identify: { supervisor.owner(of: $0) }, logger: logger)
        let players = MediaPlayers(bus: desktop)
        let pushConnector = UnifiedPushConnector(bus: desktop, logger: logger)
        pushConnector.start()
        let notificationPresenter = DesktopNotificationPresenter(
            bus: desktop, fallback: LogNotificationPresenter(logger: logger, logPath: { supervisor.logPath(for: $0) }),
            logger: logger)
        notificationPresenter.start()
        let notificationFeed = NotificationFeed(logger: logger)
        // Per app and power state, from the policy (a plug-in may vary them).
        let schedulingNumbers: @Sendable (AppManifest, Bool) -> SchedulingPolicy = { app, onExternalPower in
            policy.scheduling(for: app, onExternalPower: onExternalPower)
        }
        let transferDirectory = configuration.stateDirectory + "/transfers"
        try PrivateDirectory.prepareOwn(transferDirectory, purpose: "background transfer", mode: 0o700)
        let transferClient = try HTTPTransferClient(trustedCertificates: configuration.trustedCertificates)
        let transfers = TransferCapability(
            store: store,
            files: TransferFiles(
                directory: transferDirectory,
                dataDirectory: { try supervisor.ownDataDirectory(for: $0) },
                identity: { try supervisor.appIdentity($0) }),
            client: transferClient,
            logger: logger)
        // What the system does for apps: each capability is a target and a line here.
        let capabilities = Capabilities(
            location: LocationCapability(store: store, logger: logger),
            audio: AudioCapability(service: audio, store: store, players: players),
            scheduling: SchedulingCapability(store: store, logger: logger, pushConnector: pushConnector),
            transfers: transfers,
            resources: ResourceCapability(controllers: controllers, limits: configuration.limits),
            notifications: NotificationCapability(
                store: store, presenter: notificationPresenter, feed: notificationFeed, logger: logger),
            sharing: SharingCapability(files: sharedFiles, store: store, musicDirectory: configuration.musicDirectory)
        )
        await capabilities.connect()
        let apps = AppManager(
            supervisor: supervisor,
            channels: appChannels,
            registry: registry,
            store: store,
            policy: policy,
            capabilities: capabilities.all,
            retirement: retirement,
            limits: configuration.limits,
            schedulingNumbers: schedulingNumbers,
            bootID: BootID.read(configuration.bootIDPath),
            logger: logger
        )
        // Apps an earlier run left running (a restart, an upgrade, a crash) are taken over
        // before anyone can reach the daemon; whatever else it left is ended.
        clearLeftovers(mechanism, keeping: await apps.adoptRecordedProcesses())
        // From here on, what the capabilities hold in memory goes with an identity kept aside.
        await registry.retireThrough { [weak apps] claim in await apps?.retire(claim) }
        logger.info("apps are suspended with \(mechanism.name); policy \(policy.name); sandbox \(sandbox.summary)")
        let memoryPressure = try MemoryPressureMonitor(apps: apps, logger: logger)
        let location = try LocationService(
            address: configuration.gpsdAddress, capability: capabilities.location, apps: apps, logger: logger)
        let conditions = ConditionMonitor(
            powerSupplyDirectory: configuration.powerSupplyDirectory, interval: configuration.conditionsInterval,
            logger: logger
        ) { power, network in
            await apps.conditionsChanged(externalPower: power, network: network)
        }
        let context = DaemonContext(
            configuration: configuration,
            registry: registry,
            location: location,
            audio: audio,
            store: store,
            apps: apps,
            capabilities: capabilities,
            conditions: conditions,
            resources: resources,
            desktop: desktop,
            players: players,
            notificationFeed: notificationFeed
        )
        let (listening, listeningContinuation) = AsyncStream<Void>.makeStream()
        let server = ControlServer(
            context: context, personCheck: PersonCheck(supervisor: supervisor), appChannels: appChannels,
            logger: logger,
            onListening: {
                listeningContinuation.yield()
                listeningContinuation.finish()
            }
        )
        let notifier = SystemdNotifier()
        let systemd = SystemdService(notifier: notifier, context: context, listening: listening, logger: logger)
        let watcher = try BundleWatcher(
            directories: configuration.bundleDirectories,
            registry: registry,
            logger: logger
        )

        let desktopRequests = DesktopRequests(
            players: players, push: pushConnector, notifications: notificationPresenter, apps: apps,
            capabilities: capabilities, logger: logger)
        var services: [any Service] = [
            server, location, audio, AudioEventFeed(engine: audio.engine, capability: capabilities.audio, apps: apps),
            watcher, conditions, systemd, HangupReload(registry: registry, logger: logger), desktop, desktopRequests,
            SessionLockWatcher(bus: desktop, apps: apps, logger: logger),
        ]
        if configuration.watchesMemoryPressure { services.append(memoryPressure) }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        // Transfers stored by an earlier run resume.
        await capabilities.transfers.reschedule(in: apps)
        // So do notifications; those due while the daemon was stopped fire now.
        await capabilities.notifications.reschedule(in: apps)
        try await group.run()
        await capabilities.transfers.stop()
        await transferClient.shutdown()
        if configuration.liveRestore {
            let left = await apps.runningCount
            logger.notice("leaving \(left) app(s) running for the next daemon to adopt (--live-restore)")
        } else {
            // Ending apps takes their grace period: systemd is told to wait that long more.
            notifier.notify(["EXTEND_TIMEOUT_USEC=\((AppManager.terminationGrace + .seconds(5)).wholeMicroseconds)"])
            await apps.terminateAll()
            supervisor.detachVolumes()
            if let freezer = mechanism as? CgroupFreezer, !freezer.removeBase() {
                logger.warning("could not remove \(freezer.base): an app in it is still running")
            }
        }
        try store.endRun(id: run.id, at: Date())
        logger.info("stopped")
        withExtendedLifetime(lock) {}
    }
}
