import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem
import Foundation

/// The system layer as this run opened it: what the core and the capabilities are built on.
struct SystemParts {
    let sandbox: AppSandbox
    /// Held until the daemon stops: a second daemon is refused the state directory.
    let lock: StateDirectoryLock
    let store: StateStore
    /// This run's record in the store.
    let run: (id: Int64, previousEndedUncleanly: Bool)
    let mechanism: any SuspensionMechanism
    let retirement: IdentityRetirement
    let registry: BundleRegistry
    let supervisor: Supervisor
    let controllers: CgroupControllers
    /// What the kernel is told of apps' shares, for `bgctl status`.
    let resources: String
    let policy: any BackgroundPolicy
    /// The session and system buses, optional: without them the rest runs on.
    let desktop: DesktopBus
}

extension Daemon {
    /// Opens the system layer in the order safety needs: the state directory and its lock
    /// before anything in it, the store, the suspension mechanism, the bundles, the supervisor.
    func openSystem() async throws -> SystemParts {
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
        let (store, run) = try openStore()
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
            mechanism: mechanism, sandbox: sandbox, stateDirectory: configuration.stateDirectory,
            socketPath: configuration.socketPath, store: store, logLimit: configuration.limits.appLogBytes,
            volumes: volumes, logger: logger)
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
        return SystemParts(
            sandbox: sandbox, lock: lock, store: store, run: run, mechanism: mechanism, retirement: retirement,
            registry: registry, supervisor: supervisor, controllers: controllers, resources: resources,
            policy: choosePolicy(registry.catalog),
            desktop: try DesktopBus(identify: { supervisor.owner(of: $0) }, logger: logger))
    }

    /// The state database, checked and with this run begun in it.
    private func openStore() throws -> (StateStore, (id: Int64, previousEndedUncleanly: Bool)) {
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
        return (store, run)
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
            let policy = try PluginPolicy.load(BundleID(identifier), from: catalog, standard: standard, logger: logger)
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
}
