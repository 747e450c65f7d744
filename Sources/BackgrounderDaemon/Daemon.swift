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
    let configuration: DaemonConfiguration
    let logger: Logger

    /// Creates the daemon.
    /// - Parameters:
    ///   - configuration: Paths and servers.
    ///   - logger: The root logger; services add their own metadata.
    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
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
        let system = try await openSystem()
        // What the system does for apps: each capability is a target and a line in `make`.
        let capabilities = try Capabilities.make(configuration, on: system, logger: logger)
        await capabilities.connect()
        let appChannels = AppChannels(logger: logger)
        let apps = AppManager(
            supervisor: system.supervisor, channels: appChannels, registry: system.registry, store: system.store,
            policy: system.policy, capabilities: capabilities.all, retirement: system.retirement,
            limits: configuration.limits,
            // Per app and power state, from the policy (a plug-in may vary them).
            schedulingNumbers: { [policy = system.policy] in policy.scheduling(for: $0, onExternalPower: $1) },
            bootID: BootID.read(configuration.bootIDPath), logger: logger)
        // Apps an earlier run left running (a restart, an upgrade, a crash) are taken over
        // before anyone can reach the daemon; whatever else it left is ended.
        clearLeftovers(system.mechanism, keeping: await apps.adoptRecordedProcesses())
        // From here on, what the capabilities hold in memory goes with an identity kept aside.
        await system.registry.retireThrough { [weak apps] claim in await apps?.retire(claim) }
        // And a running app whose bundle went away or was replaced is ended.
        await system.registry.afterEachReload { [weak apps] catalog in await apps?.bundlesChanged(catalog) }
        logger.info(
            "apps are suspended with \(system.mechanism.name); policy \(system.policy.name); sandbox \(system.sandbox.summary)"
        )
        let (services, notifier) = try makeServices(
            system: system, capabilities: capabilities, apps: apps, appChannels: appChannels)
        await apps.startCapabilities()
        try await ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger)
        ).run()
        await apps.stopCapabilities()
        await stopApps(apps, system: system, notifier: notifier)
        try system.store.endRun(id: system.run.id, at: Date())
        logger.info("stopped")
        withExtendedLifetime(system.lock) {}
    }

    /// The services the daemon runs until it stops: the control socket, the capabilities'
    /// sources (gpsd, PulseAudio, conditions), the desktop, systemd.
    private func makeServices(
        system: SystemParts, capabilities: Capabilities, apps: AppManager, appChannels: AppChannels
    ) throws -> (services: [any Service], notifier: SystemdNotifier) {
        let location = try LocationService(
            address: configuration.gpsdAddress, capability: capabilities.location, apps: apps, logger: logger)
        let conditions = try ConditionMonitor(
            powerSupplyDirectory: configuration.powerSupplyDirectory, interval: configuration.conditionsInterval,
            logger: logger
        ) { power, network in
            await apps.conditionsChanged(externalPower: power, network: network)
        }
        let context = DaemonContext(
            configuration: configuration, registry: system.registry, location: location, store: system.store,
            apps: apps, capabilities: capabilities, conditions: conditions, desktop: system.desktop,
            resources: system.resources)
        let (listening, listeningContinuation) = AsyncStream<Void>.makeStream()
        let server = ControlServer(
            context: context, personCheck: PersonCheck(supervisor: system.supervisor), appChannels: appChannels,
            logger: logger,
            onListening: {
                listeningContinuation.yield()
                listeningContinuation.finish()
            }
        )
        let notifier = SystemdNotifier()
        // They stop in reverse: the control socket last, the desktop's requests first.
        var services: [any Service] = [server, location] + capabilities.services(apps: apps)
        services += [
            try BundleWatcher(directories: configuration.bundleDirectories, registry: system.registry, logger: logger),
            conditions, SystemdService(notifier: notifier, context: context, listening: listening, logger: logger),
            HangupReload(registry: system.registry, logger: logger), system.desktop,
            DesktopRequests(capabilities: capabilities, apps: apps, logger: logger),
            SessionLockWatcher(bus: system.desktop, apps: apps, logger: logger),
        ]
        if configuration.watchesMemoryPressure {
            services.append(try MemoryPressureMonitor(apps: apps, logger: logger))
        }
        return (services, notifier)
    }

    /// Ends the apps, or, with `--live-restore` and unless systemd says this is a stop rather
    /// than a restart, leaves them for the next daemon to adopt.
    private func stopApps(_ apps: AppManager, system: SystemParts, notifier: SystemdNotifier) async {
        if configuration.liveRestore {
            switch SystemdStopJob.current() {
            case .success(.stop):
                logger.notice("systemd is stopping the daemon, not restarting it: the apps end with it")
            case .success(.restart):
                await apps.endRefillFreezes()
                let left = await apps.runningCount
                logger.notice(
                    "restarting: leaving \(left) app(s) running for the next daemon to adopt (--live-restore)")
                return
            case .failure(let unknown):
                // Not a systemd stop (a daemon run by hand, a signal sent by hand): the
                // person asked for live restore.
                await apps.endRefillFreezes()
                let left = await apps.runningCount
                logger.notice(
                    "leaving \(left) app(s) running for the next daemon to adopt (--live-restore; \(unknown.message))")
                return
            }
        }
        // Ending apps takes their grace period: systemd is told to wait that long more.
        notifier.notify(["EXTEND_TIMEOUT_USEC=\((AppManager.terminationGrace + .seconds(5)).wholeMicroseconds)"])
        await apps.terminateAll()
        system.supervisor.detachVolumes()
        if let freezer = system.mechanism as? CgroupFreezer, !freezer.removeBase() {
            logger.warning("could not remove \(freezer.base): an app in it is still running")
        }
    }
}
