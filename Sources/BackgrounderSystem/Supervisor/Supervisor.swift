package import BackgrounderCore
import BackgrounderProtocol
import CSandbox
import Foundation
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Starts app executables as children in their own session, container and sandbox, sends
/// their output to a per-app log, and reports each exit.
///
/// Processes are started by `CSandbox` (fork, then only system calls until execve; see
/// docs/SANDBOX.md) and watched, with their output, by one thread for all apps
/// (``ProcessWatch``, pidfds in one epoll): no polling, and no Foundation `Process` (see
/// docs/decisions/0002).
package final class Supervisor: Sendable {
    /// A running app process.
    package struct Launched: Sendable, Hashable {
        /// The process the daemon started (it leads its session and process group).
        package var pid: Int32
        /// Where its processes live.
        package var container: AppContainer
        /// The user it runs as.
        package var uid: UInt32
    }

    package let mechanism: any SuspensionMechanism
    /// What every app is started in.
    package let sandbox: AppSandbox
    private let logDirectory: String
    private let dataDirectory: String
    private let temporaryDirectory: String
    private let socketPath: String
    private let store: StateStore
    private let logger: Logger
    /// The running apps' lead processes (started or adopted), for naming the app a session
    /// belongs to and for knowing a lead process that reconnects.
    private let leaders: Locked<[Int32: AppLaunch]>
    /// Bytes an app's log holds before it is rotated (`--app-log-limit`).
    private let logLimit: Int
    /// Under signals: reaps the orphans that come to the daemon as their subreaper.
    private let orphans: OrphanReaper?
    /// What `bgctl status` says about identity under signals.
    package let containment: String?
    /// Each app's data directory as a volume of the quota's size, where they can be had.
    package let volumes: DataVolumes?
    /// What `bgctl status` says about data quotas.
    package let volumesSummary: String
    /// The one thread that sees every app process exit and copies their output.
    private let watch: ProcessWatch

    package init(
        mechanism: any SuspensionMechanism, sandbox: AppSandbox, stateDirectory: String, socketPath: String,
        store: StateStore, logLimit: Int = AppLimits.defaultAppLogBytes,
        volumes: Result<DataVolumes, DataVolumeUnavailable> = .failure(DataVolumeUnavailable("none asked for")),
        logger: Logger
    ) throws {
        self.logLimit = logLimit
        self.watch = .shared
        self.mechanism = mechanism
        self.sandbox = sandbox
        let directories = AppDirectories(stateDirectory: stateDirectory)
        self.logDirectory = directories.logs
        self.dataDirectory = directories.data
        self.temporaryDirectory = directories.temporary
        self.socketPath = socketPath
        self.store = store
        self.logger = logger
        if let signals = mechanism as? SignalFreezer {
            // Shared with the mechanism, which ends the processes that lead no app.
            let leaders = signals.leaders
            self.leaders = leaders
            switch OrphanReaper.start(
                launching: signals.launching, isLeader: { pid in leaders.withLock { $0[pid] != nil } })
            {
            case .success(let reaper):
                orphans = reaper
                containment =
                    "a process that leaves its app's session is still the app's (the daemon adopts orphans); "
                    + "one that also lost its parent is ended when any app is suspended or ends"
            case .failure(let error):
                orphans = nil
                containment =
                    "a process that leaves its app's session and outlives its parent is taken for no app: \(error)"
                logger.warning("\(error)")
            }
        } else {
            leaders = Locked([:])
            orphans = nil
            containment = nil
        }
        switch volumes {
        case .success(let volumes):
            self.volumes = volumes
            volumesSummary = "data quota \(volumes.bytes / 1_048_576) MiB per app (a volume each)"
        case .failure(let why):
            self.volumes = nil
            volumesSummary = "no data quota (\(why))"
        }
        // Logs stay the daemon's alone; apps pass through the other two to their own entry.
        try PrivateDirectory.prepareOwn(logDirectory, purpose: "app log", mode: 0o700)
        try PrivateDirectory.prepareOwn(dataDirectory, purpose: "app data", mode: sandbox.directoryMode)
        try PrivateDirectory.prepareOwn(temporaryDirectory, purpose: "app temporary", mode: sandbox.directoryMode)
    }

    /// The directories that hold every app's own data and temporary directories: apps write
    /// there, so nothing found there is the person's word (a link in it is not followed).
    package var appDirectories: [String] { [dataDirectory, temporaryDirectory] }

    /// The app's own directory for what it keeps between launches (its container, as on iOS),
    /// passed to it as `BACKGROUNDER_DATA_DIR` and `HOME`.
    package func dataPath(for bundleIdentifier: BundleID) -> String {
        dataDirectory + "/" + bundleIdentifier.rawValue
    }

    /// The app's data directory, made (and given to the app's uid) if it is not there yet.
    package func ownDataDirectory(for bundleIdentifier: BundleID) throws -> String {
        let path = dataPath(for: bundleIdentifier)
        let identity = try appIdentity(bundleIdentifier)
        if let volumes, let identity {
            try makeDirectory(path)
            do {
                try volumes.attach(path, identifier: bundleIdentifier, uid: identity)
            } catch {
                // The app still runs, in a directory without a quota; the reserve keeps the
                // daemon committing if it fills the disk.
                logger.error("\(bundleIdentifier)'s data directory has no quota: \(error)")
            }
        }
        return try ownDirectory(path, identity: identity)
    }

    /// Unmounts every app's data volume, once the apps are gone.
    package func detachVolumes() {
        volumes?.detachAll(under: dataDirectory)
    }

    /// The app's private temporary directory, passed to it as `TMPDIR`.
    package func temporaryPath(for bundleIdentifier: BundleID) -> String {
        temporaryDirectory + "/" + bundleIdentifier.rawValue
    }

    /// The file an app's standard output and error go to.
    package func logPath(for bundleIdentifier: BundleID) -> String {
        logDirectory + "/" + bundleIdentifier.rawValue + ".log"
    }

    /// Marks in the app's log where the run ended, and how (``AppLog/markEnd(_:inLogAt:)``).
    package func markEnd(of identifier: BundleID, _ text: String) {
        AppLog.markEnd(text, inLogAt: logPath(for: identifier))
    }

    /// The last lines the app's latest run wrote, without stamps: what a process that ended
    /// at once said. Read from the end of the log and its rotation.
    package func lastOutput(of identifier: BundleID, lines count: Int) -> [String] {
        let path = logPath(for: identifier)
        let tail = AppLog.tail(of: path + ".1") + AppLog.tail(of: path)
        return AppLogFormat.lastRunLines(String(decoding: tail, as: UTF8.self), count: count).map(String.init)
    }

    /// Launches a bundle's executable in its container and sandbox.
    /// - Parameters:
    ///   - bundle: The app.
    ///   - reason: Why it is launched, passed to the app.
    ///   - channel: The app's end of its control connection, which it gets as descriptor 3
    ///     (`BACKGROUNDER_FD`); the caller closes its own copy afterwards.
    ///   - onExit: Called once, from ``ProcessWatch``'s thread, when the process is gone and
    ///     its output is in its log (or a second later).
    /// - Returns: The process and its container.
    /// - Throws: ``DaemonError`` when the container, the sandbox or the process cannot be made.
    package func launch(
        _ bundle: ValidatedBundle,
        reason: LaunchReason,
        channel: Int32,
        onExit: @escaping @Sendable (ExitStatus) -> Void
    ) throws -> Launched {
        let identifier = bundle.manifest.bundleIdentifier
        let identity = try appIdentity(identifier)
        let data = try ownDataDirectory(for: identifier)
        let temporary = try ownDirectory(temporaryPath(for: identifier), identity: identity)
        let bundleDirectory = (bundle.executablePath as NSString).deletingLastPathComponent

        var ruleset: Int32 = -1
        if let landlock = sandbox.landlock {
            let profile = SandboxProfile.app(
                bundleDirectory: bundle.path, dataDirectory: data, temporaryDirectory: temporary)
            ruleset = try landlock.ruleset(profile.rules)
        }
        defer { if ruleset >= 0 { close(ruleset) } }

        let container = try mechanism.prepare(appID: identifier)
        var cgroupProcs: Int32 = -1
        if let cgroup = container.cgroupPath {
            cgroupProcs = open(cgroup + "/cgroup.procs", O_WRONLY | O_CLOEXEC)
            guard cgroupProcs >= 0 else {
                throw DaemonError(
                    .configuration, path: cgroup + "/cgroup.procs", "cannot open: \(String(cString: strerror(errno)))")
            }
        }
        defer { if cgroupProcs >= 0 { close(cgroupProcs) } }
        // The child starts in the cgroup where the kernel allows it (CLONE_INTO_CGROUP);
        // without the directory it joins through cgroup.procs.
        let cgroupDirectory = container.cgroupPath.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
        defer { if cgroupDirectory >= 0 { close(cgroupDirectory) } }

        // The child writes into an AppLog pipe, which the daemon copies to the log with a
        // size cap and one rotation: an app cannot fill the disk.
        let log = try AppLog(path: logPath(for: identifier), limit: logLimit)

        let environment = AppEnvironment.make(
            bundleIdentifier: identifier.rawValue,
            launchReason: reason,
            dataDirectory: data,
            temporaryDirectory: temporary,
            socketPath: socketPath,
            // Only what an app takes from it, read with getenv: `ProcessInfo.environment`
            // builds a dictionary of the whole environment on each call: a sixth of the
            // daemon's CPU for each launch (perf on bgbench relaunch).
            daemonEnvironment: ["LANG", "TZ"].reduce(into: [:]) { found, name in
                found[name] = getenv(name).map { String(cString: $0) }
            }
        )
        // Started and registered as one step for the orphan reaper: it must not take an app
        // that exits at once for an orphan and reap it before its own thread.
        let launched = try whileLaunching {
            let pid: Int32
            do {
                pid = try SandboxedSpawn(
                    executable: bundle.executablePath,
                    arguments: [bundle.executablePath],
                    environment: environment,
                    directory: bundleDirectory,
                    output: log.writeDescriptor,
                    channel: channel,
                    cgroupProcs: cgroupProcs,
                    cgroupDirectory: cgroupDirectory,
                    landlockRuleset: ruleset,
                    identity: identity.map { ($0, $0) },
                    processLimit: sandbox.processLimit ?? 0,
                    memoryLimit: sandbox.memoryLimit ?? 0,
                    privateProc: sandbox.privateProc,
                    procAccess: sandbox.landlock?.procReadAccess ?? 0,
                    noexecDirectories: [data, temporary],
                    ownUserNamespace: sandbox.ownUserNamespace,
                    hiddenPaths: sandbox.hiddenPaths,
                    refuseClone3: sandbox.refusesClone3,
                    refuseDynamicCode: sandbox.refusesDynamicCode && !bundle.manifest.allowsJIT,
                    refusePtrace: sandbox.refusesPtrace
                ).start()
            } catch {
                log.abandon()
                throw error
            }
            let launched = Launched(pid: pid, container: container, uid: identity ?? geteuid())
            leaders.withLock { $0[pid] = AppLaunch(bundle: identifier, pid: pid, uid: launched.uid) }
            return launched
        }
        orphans?.childWasStarted()
        log.releaseWriteEnd()
        let pid = launched.pid
        log.markStart("\(AppLogFormat.runStartWord) (\(reason.rawValue)) as pid \(pid)")
        watch.watchChild(pid, log: log) { [self] status in
            _ = self.leaders.withLock { $0.removeValue(forKey: pid) }
            onExit(status)
        }
        return launched
    }

    /// Runs a launch while the orphan reaper and the stray check wait (under signals), so the
    /// lead process is registered before either can see it.
    private func whileLaunching<T: Sendable>(_ body: () throws -> T) throws -> T {
        guard let signals = mechanism as? SignalFreezer else { return try body() }
        return try signals.launching.withLock { _ in try body() }
    }

    /// Takes over a process an earlier run of the daemon started, when it is provably that
    /// process, still in its container: same pid and start time in this boot, in the app's
    /// cgroup (or leading its own session under signals), and its output pipe still there.
    /// - Parameters:
    ///   - record: What the earlier run recorded.
    ///   - bootID: This boot's id.
    ///   - onExit: Called once, from ``ProcessWatch``'s thread, when the process is gone. Its exit
    ///     status belongs to its parent, the earlier daemon's reaper (now init or a
    ///     subreaper): ``ExitStatus/unknown``.
    /// - Returns: The process, or why it cannot be adopted.
    package func adopt(
        _ record: StateStore.ProcessRecord, bootID: String?, onExit: @escaping @Sendable (ExitStatus) -> Void
    ) -> Result<Launched, AdoptionRefusal> {
        let identifier = record.bundleIdentifier
        guard let bootID, record.bootID == bootID else { return .failure(.rebooted) }
        guard let stat = ProcessStat.read(record.pid), stat.startTicks == record.startTicks, stat.state != "Z" else {
            return .failure(.processGone(record.pid))
        }
        // Pinned first: whatever is checked next is about this process, even if it exits.
        let pidfd = bg_pidfd_open(record.pid)
        guard pidfd >= 0 else { return .failure(.processGone(record.pid)) }
        let container = AppContainer(cgroupPath: record.cgroupPath)
        let inPlace: Bool
        switch try? mechanism.membership(of: record.pid) {
        case .app(let owner)?: inPlace = owner == identifier && record.cgroupPath != nil
        case .session(let session)?: inPlace = session == record.pid && record.cgroupPath == nil
        default: inPlace = false
        }
        guard inPlace, ProcessStat.read(record.pid)?.startTicks == record.startTicks else {
            close(pidfd)
            return .failure(.containerGone(record.cgroupPath ?? "session \(record.pid)"))
        }
        guard let log = AppLog.reattach(path: logPath(for: identifier), limit: logLimit) else {
            close(pidfd)
            return .failure(.outputGone(AppLog.pipePath(forLog: logPath(for: identifier))))
        }
        let launched = Launched(pid: record.pid, container: container, uid: record.uid)
        leaders.withLock { $0[record.pid] = AppLaunch(bundle: identifier, pid: record.pid, uid: record.uid) }
        watch.watchAdopted(record.pid, pidfd: pidfd, log: log) { [self] _ in
            _ = self.leaders.withLock { $0.removeValue(forKey: record.pid) }
            onExit(.unknown)
        }
        return .success(launched)
    }

    /// What an earlier run must record of a process for a later one to adopt it.
    package func record(
        of launched: Launched, bundle identifier: BundleID, bootID: String, reason: LaunchReason, suspended: Bool,
        foreground: Bool
    ) -> StateStore.ProcessRecord? {
        guard let stat = ProcessStat.read(launched.pid) else { return nil }
        return StateStore.ProcessRecord(
            bundleIdentifier: identifier, pid: launched.pid, startTicks: stat.startTicks, bootID: bootID,
            cgroupPath: launched.container.cgroupPath, uid: launched.uid, launchReason: reason, suspended: suspended,
            foreground: foreground)
    }

    /// The launch a peer on the public socket speaks for: an app's lead process (one the
    /// daemon started or adopted, of the app's uid, still in the app's container) that
    /// reconnects after the daemon restarted; `nil` for every other process.
    package func launch(of peer: PeerProcess) -> AppLaunch? {
        guard let launch = leaders.withLock({ $0[peer.pid] }), launch.uid == peer.uid,
            case .app(let owner) = owner(of: peer), owner == launch.bundle
        else { return nil }
        return launch
    }

    /// The descriptor an app finds its control connection on.
    package static let channelDescriptor: Int32 = 3

    /// Which app, if any, a peer process belongs to, read from the kernel and checked against
    /// the peer's pidfd afterwards. Anything that cannot be read or verified is reported as
    /// such, never as "no app": callers fail closed.
    package func owner(of peer: PeerProcess) -> ProcessOwner {
        let membership: ContainerMembership
        do {
            membership = try mechanism.membership(of: peer.pid)
        } catch {
            return .unverifiable("\(error)")
        }
        // Read first, then check the process is still the one that connected: a pid reused
        // in between would have made the read describe someone else.
        guard peer.isAlive else {
            return .unverifiable("pid \(peer.pid) exited before the daemon could tell whose process it was")
        }
        switch membership {
        case .app(let identifier): return .app(identifier)
        case .unnamedApp(let cgroup): return .unverifiable("pid \(peer.pid) is in an app cgroup (\(cgroup))")
        case .session(let session):
            if let launch = leaders.withLock({ $0[session] }) { return .app(launch.bundle) }
            // A process that left its app's session (`setsid`) still descends from the app.
            let owner = ancestry(of: peer.pid)
            guard peer.isAlive else {
                return .unverifiable("pid \(peer.pid) exited before the daemon could tell whose process it was")
            }
            return owner
        case .outside: return .none
        }
    }

    /// Under signals: whose a process in no app's session is, by its ancestors. An app's
    /// process that called `setsid()` is still the child or grandchild of a process in the app's
    /// session; once those are gone it is the daemon's (a subreaper adopts orphans), and a
    /// descendant of the daemon through no running app is no person. A link that cannot be
    /// read is unverifiable; an ancestor that exits meanwhile moves its children to the daemon,
    /// so a race only ever ends on the refusing side.
    private func ancestry(of pid: Int32) -> ProcessOwner {
        let daemon = getpid()
        var current = pid
        for _ in 0..<128 {
            guard let stat = ProcessStat.read(current) else {
                return .unverifiable("cannot read /proc/\(current)/stat, an ancestor of pid \(pid)")
            }
            if let launch = leaders.withLock({ $0[current] ?? $0[stat.session] }) { return .app(launch.bundle) }
            if stat.parent == daemon {
                return .unverifiable("pid \(pid) descends from the daemon through no running app (an app's orphan)")
            }
            // Init, or a parent outside the daemon's pid namespace: nobody's app.
            guard stat.parent > 1 else { return .none }
            current = stat.parent
        }
        return .unverifiable("pid \(pid) has more than 128 ancestors")
    }

    /// The uid (and gid) the app runs as, or `nil` for the daemon's own.
    package func appIdentity(_ identifier: BundleID) throws -> UInt32? {
        guard let range = sandbox.appUsers else { return nil }
        return try store.appUser(for: identifier, in: range) { id in
            getpwuid(id) != nil || getgrgid(id) != nil
        }
    }

    /// Creates the app's own directory (0700), owned by the app's uid when it has one.
    /// An existing one is given to that uid, through a descriptor opened without following
    /// links; what the app left inside keeps its owner.
    private func ownDirectory(_ path: String, identity: UInt32?) throws -> String {
        try makeDirectory(path)
        guard let identity else { return path }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw DaemonError(.directory, path: path, "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw DaemonError(.directory, path: path, "cannot stat: \(String(cString: strerror(errno)))")
        }
        if info.st_uid != identity || info.st_gid != identity {
            guard fchown(descriptor, identity, identity) == 0 else {
                throw DaemonError(
                    .directory, path: path, "cannot give it to uid \(identity): \(String(cString: strerror(errno)))")
            }
        }
        if info.st_mode & 0o7777 != 0o700 { fchmod(descriptor, 0o700) }
        return path
    }

    /// Creates an app's directory (0700) unless it is there.
    private func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw DaemonError(.directory, path: path, "cannot create: \(String(cString: strerror(errno)))")
        }
    }

    /// CPU time of every process of the app, in seconds.
    package func cpuSeconds(_ launched: Launched) -> Double {
        if let path = launched.container.cgroupPath,
            let text = try? String(contentsOfFile: path + "/cpu.stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("usage_usec ") }),
            let microseconds = Double(line.split(separator: " ")[1])
        {
            return microseconds / 1e6
        }
        return ProcessStat.read(launched.pid)?.cpuSeconds ?? 0
    }

    /// The memory the whole app holds, in bytes: its cgroup's `memory.current` (page cache
    /// and kernel memory charged to it included) where the memory controller is on, else the
    /// resident memory of every process in its cgroup, or of its family under signals (its
    /// session and their descendants), so an app that keeps its memory in a child, even one
    /// that left the session, is sized by it too.
    package func memoryBytes(_ launched: Launched) -> Int {
        if let cgroup = launched.container.cgroupPath {
            if let text = try? String(contentsOfFile: cgroup + "/memory.current", encoding: .utf8),
                let bytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return bytes
            }
            let text = (try? KernelFile.read(cgroup + "/cgroup.procs").get()) ?? ""
            let members = text.split(separator: "\n").compactMap { Int32($0) }
            if !members.isEmpty { return members.reduce(0) { $0 + ProcessStat.residentBytes($1) } }
        } else {
            let members = ProcessStat.family(ofLeader: launched.pid)
            if !members.isEmpty { return members.reduce(0) { $0 + ProcessStat.residentBytes($1) } }
        }
        return ProcessStat.residentBytes(launched.pid)
    }

    /// Whether the app's processes are frozen now (its cgroup frozen, or its lead process
    /// stopped under signals). A cgroup freeze asked for and not complete yet counts: a run
    /// stopped between asking and the kernel finishing left it to finish all the same.
    package func isFrozen(_ launched: Launched) -> Bool {
        if let path = launched.container.cgroupPath {
            return CgroupFreezer.isFrozen(path) || CgroupFreezer.isFreezeRequested(path)
        }
        return ProcessStat.read(launched.pid)?.state == "T"
    }

    /// Sends SIGTERM to the app's process group (not to a frozen app: thaw it first). An app
    /// that leads a PID namespace and has no say on SIGTERM would not get it (the kernel's rule
    /// for a namespace's first process): it is killed, as SIGTERM's default would.
    package func requestTermination(_ launched: Launched) {
        // Judged before sending: a process in sigwait that the signal wakes shows its masks
        // as lifted for the wait until it runs again.
        let dropped = NamespaceInit.dropsDefault(SIGTERM, pid: launched.pid)
        Glibc.kill(-launched.pid, SIGTERM)
        if dropped { kill(launched) }
    }

    /// Kills every process of the app at once.
    package func kill(_ launched: Launched) {
        do {
            try mechanism.kill(launched.container, leader: launched.pid)
        } catch {
            logger.error("\(error); falling back to SIGKILL of the process group")
            Glibc.kill(-launched.pid, SIGKILL)
        }
    }
}

/// Which app a process belongs to, as far as the daemon can tell.
package enum ProcessOwner: Sendable, Hashable {
    /// One of this app's processes.
    case app(BundleID)
    /// No app's.
    case none
    /// The daemon could not tell, and why; treated as an app's, never as a person's.
    case unverifiable(String)
}
