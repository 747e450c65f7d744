import BackgrounderBundles
import BackgrounderCore
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
        guard let identifier = configuration.policyBundle else { return configuration.policy }
        do {
            let policy = try PluginPolicy.load(identifier, from: catalog, standard: configuration.policy)
            let numbers = policy.numbers
            logger.info(
                "loaded policy plug-in \(identifier): task budget \(numbers.taskBudget), grace \(numbers.suspendGrace), expiration warning \(numbers.expirationWarning)"
            )
            return policy
        } catch {
            logger.error("policy plug-in not used: \(error); using the standard policy")
            return configuration.policy
        }
    }

    private func suspensionMechanism() throws -> any SuspensionMechanism {
        switch configuration.suspension {
        case .signals:
            return SignalFreezer()
        case .cgroup:
            return clearingLeftovers(try CgroupFreezer.discover(stateDirectory: configuration.stateDirectory).get())
        case .auto:
            switch CgroupFreezer.discover(stateDirectory: configuration.stateDirectory) {
            case .success(let freezer): return clearingLeftovers(freezer)
            case .failure(let reason):
                logger.warning("no usable cgroup v2 freezer (\(reason)); suspending apps with SIGSTOP")
                return SignalFreezer()
            }
        }
    }

    private func clearingLeftovers(_ freezer: CgroupFreezer) -> CgroupFreezer {
        for identifier in freezer.clearLeftovers() {
            logger.warning("ended \(identifier), left running by a daemon that did not stop cleanly")
        }
        return freezer
    }

    /// Runs until SIGTERM or SIGINT.
    /// - Throws: ``DaemonError`` when the socket or state directory cannot be used, or the
    ///   first error a service fails with.
    public func run() async throws {
        try ControlSocket.prepare(configuration.socketPath)
        let store = try StateStore(directory: configuration.stateDirectory)
        let run = try store.beginRun(pid: getpid(), at: Date())
        if run.previousEndedUncleanly {
            logger.warning("the previous run did not stop cleanly; state restored from \(store.path)")
        }

        let registry = BundleRegistry(directories: configuration.bundleDirectories, store: store, logger: logger)
        await registry.reload()
        let mechanism = try suspensionMechanism()
        let supervisor = try Supervisor(
            mechanism: mechanism,
            stateDirectory: configuration.stateDirectory,
            socketPath: configuration.socketPath,
            logger: logger
        )
        let policy = choosePolicy(registry.catalog)
        let audio = try AudioService(
            server: configuration.pulseServer,
            socketPath: AudioSocketServer.path(forControlSocket: configuration.socketPath),
            logger: logger
        )
        let apps = AppManager(
            supervisor: supervisor,
            registry: registry,
            store: store,
            policy: policy,
            audio: audio,
            logger: logger
        )
        audio.deliverEvents(to: apps)
        logger.info("apps are suspended with \(mechanism.name); policy \(policy.name)")
        let memoryPressure = try MemoryPressureMonitor(apps: apps, logger: logger)
        let location = try LocationService(address: configuration.gpsdAddress, apps: apps, logger: logger)
        let context = DaemonContext(
            configuration: configuration,
            registry: registry,
            location: location,
            audio: audio,
            store: store,
            apps: apps
        )
        let server = ControlServer(context: context, logger: logger)
        let watcher = try BundleWatcher(
            directories: configuration.bundleDirectories,
            registry: registry,
            logger: logger
        )

        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: server),
                    .init(service: location),
                    .init(service: audio),
                    .init(service: watcher),
                ] + (configuration.watchesMemoryPressure ? [.init(service: memoryPressure)] : []),
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
        await apps.terminateAll()
        (mechanism as? CgroupFreezer)?.removeBase()
        try store.endRun(id: run.id, at: Date())
        logger.info("stopped")
    }
}
