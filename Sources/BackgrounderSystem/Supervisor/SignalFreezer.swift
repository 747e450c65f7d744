public import BackgrounderCore
import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The fallback where no writable cgroup v2 exists: each app leads its own session; suspend
/// is SIGSTOP, resume SIGCONT, kill SIGKILL, to every process of the app.
///
/// Without a cgroup, an app's processes are found by family: its session, everything
/// descended from a process in it (a child that calls `setsid()` is still its parent's), and
/// the orphans the daemon adopted as their subreaper that are still in the session. A process
/// that both left the session and lost its parent belongs to no app the daemon can name: it
/// is ended at the next suspension or end of any app (a *stray*), because letting it run would
/// let an app escape suspension and quit. `bgctl status` says which mechanism is in use.
public final class SignalFreezer: SuspensionMechanism {
    /// The running apps' lead processes, kept by the supervisor: a child of the daemon that is
    /// none of them and in none of their sessions is a stray.
    let leaders = Locked<[Int32: AppLaunch]>([:])
    /// Held from a launch's fork until its lead process is in ``leaders``, so a process being
    /// started is never taken for a stray (nor, by the orphan reaper, for an orphan).
    let launching = Locked(())
    /// Leaders of apps being suspended: a thaw removes its app's, so that a stop pass after it
    /// leaves the app running.
    private let stopping = Locked<Set<Int32>>([])

    /// Creates the signal mechanism.
    public init() {}

    public var name: String { "signals" }

    public func prepare(appID: BundleID) throws -> AppContainer {
        AppContainer(cgroupPath: nil)
    }

    /// Stops the group at once; ``waitUntilFrozen(_:leader:)`` stops the rest.
    public func freeze(_ container: AppContainer, leader: Int32) throws {
        try stopping.withLock { (stopping) throws(DaemonError) in
            stopping.insert(leader)
            try signal(SIGSTOP, leader)
        }
    }

    /// Stops every other process of the app, pass by pass, on a thread of its own: one that
    /// forked before its stop took hold has its child stopped in the next pass. Returns once
    /// every one is stopped, as the freezer does; throws after 5 s with some still running
    /// (one stuck in the kernel).
    public func waitUntilFrozen(_ container: AppContainer, leader: Int32) async throws -> Bool {
        try await withCheckedContinuation { continuation in
            startThread(named: "backgrounderd-stop") { [self] in continuation.resume(returning: stopPasses(leader)) }
        }.get()
    }

    private func stopPasses(_ leader: Int32) -> Result<Bool, DaemonError> {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            // Under the lock a thaw takes too: a pass never stops an app thawed before it.
            let done: Result<Bool, DaemonError>? = stopping.withLock { stopping in
                guard stopping.contains(leader) else { return .success(false) }
                let table = ProcessTable.read()
                endStrays(in: table)
                let family = processes(ofApp: leader, in: table).filter { !table.isDead($0) }
                guard !family.isEmpty else { return .success(false) }  // the app is gone
                let running = family.filter { !table.isStopped($0) }
                guard !running.isEmpty else { return .success(true) }
                guard ContinuousClock.now < deadline else {
                    return .failure(
                        DaemonError(
                            .configuration, path: "process group \(leader)",
                            "\(running.count) of the app's processes did not stop within 5 s"))
                }
                for pid in running { Glibc.kill(pid, SIGSTOP) }
                return nil
            }
            if let done { return done }
            usleep(1000)
        }
    }

    public func thaw(_ container: AppContainer, leader: Int32) throws {
        try stopping.withLock { (stopping) throws(DaemonError) in
            stopping.remove(leader)
            try signal(SIGCONT, leader)
            for pid in processes(ofApp: leader, in: ProcessTable.read()) { Glibc.kill(pid, SIGCONT) }
        }
    }

    /// Kills the group, then every other process of the app and every stray, until a pass
    /// finds none alive (a process may fork before its SIGKILL lands; a bounded number of
    /// passes, each ending what the one before saw).
    public func kill(_ container: AppContainer, leader: Int32) throws {
        stopping.withLock { _ = $0.remove(leader) }
        try signal(SIGKILL, leader)
        for _ in 0..<64 {
            let table = ProcessTable.read()
            let alive = processes(ofApp: leader, in: table).union(strays(in: table)).filter {
                !table.isDead($0)
            }
            guard !alive.isEmpty else { return }
            for pid in alive { Glibc.kill(pid, SIGKILL) }
            usleep(1000)
        }
    }

    /// The process's session: each app leads its own. A process that calls `setsid()`
    /// leaves it, and is found by its ancestors instead (``Supervisor``).
    ///
    /// A session of 0 is one whose leader lies outside the daemon's pid namespace (a
    /// container's processes often have one); it cannot be an app's, since the daemon sees
    /// every app it started, so it is `.outside`. Only -1 is a failure to read.
    public func membership(of pid: Int32) throws -> ContainerMembership {
        let session = getsid(pid)
        if session == 0 { return .outside }
        guard session > 0 else {
            throw DaemonError(
                .configuration, path: "/proc/\(pid)",
                "cannot read the process's session: \(String(cString: strerror(errno)))")
        }
        return .session(session)
    }

    public func release(_ container: AppContainer) {}

    /// Every process of the app led by `leader` (``ProcessTable/family(ofLeader:)``).
    func processes(ofApp leader: Int32, in table: ProcessTable) -> Set<Int32> {
        table.family(ofLeader: leader)
    }

    /// The daemon's children that lead no app and are in no app's session, nor the daemon's
    /// own, with their descendants: processes that left their app's session and lost their
    /// parent, so that no app can be named for them.
    ///
    /// Decided with no launch in progress: a process being started is the daemon's child in a
    /// session of its own until it is registered. One forked after `table` was read is not in
    /// it; one forked before is registered by the time the lock is held.
    func strays(in table: ProcessTable) -> Set<Int32> {
        let daemon = getpid()
        let ownSession = getsid(0)
        return launching.withLock { _ in
            let leaders = Set(self.leaders.withLock { Array($0.keys) })
            let roots = table.processes.filter { pid, stat in
                stat.parent == daemon && !leaders.contains(pid) && !leaders.contains(stat.session)
                    && stat.session != ownSession
            }.keys
            return table.descendants(of: Set(roots))
        }
    }

    /// Kills the strays: each was an app's process that left it.
    private func endStrays(in table: ProcessTable) {
        for pid in strays(in: table) where !table.isDead(pid) {
            Glibc.kill(pid, SIGKILL)
        }
    }

    private func signal(_ number: Int32, _ leader: Int32) throws(DaemonError) {
        if Glibc.kill(-leader, number) != 0 && errno != ESRCH {
            throw DaemonError(
                .configuration, path: "process group \(leader)", "kill failed: \(String(cString: strerror(errno)))")
        }
    }
}
