import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The fallback where no writable cgroup v2 exists: each app leads its own session and
/// process group; suspend is SIGSTOP to the group, resume SIGCONT, kill SIGKILL.
///
/// Weaker than the freezer: a process that leaves the group escapes it, and a stopped
/// process is visible as stopped to its parent. `bgctl status` says which is in use.
public struct SignalFreezer: SuspensionMechanism {
    /// Creates the signal mechanism.
    public init() {}

    public var name: String { "signals" }

    public func prepare(appID: String) throws -> AppContainer {
        AppContainer(cgroupPath: nil)
    }

    public func freeze(_ container: AppContainer, leader: Int32) throws {
        try signal(SIGSTOP, leader)
        // Return once every process of the group is stopped, as the freezer does.
        let deadline = ContinuousClock.now + .seconds(5)
        while !Self.groupStopped(leader) && ContinuousClock.now < deadline {
            usleep(1000)
        }
    }

    public func thaw(_ container: AppContainer, leader: Int32) throws {
        try signal(SIGCONT, leader)
    }

    public func kill(_ container: AppContainer, leader: Int32) throws {
        try signal(SIGKILL, leader)
    }

    /// The process's session: each app leads its own. A process that calls `setsid()`
    /// leaves it, which is why this mechanism is the weaker one (docs/SANDBOX.md).
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

    private func signal(_ number: Int32, _ leader: Int32) throws {
        if Glibc.kill(-leader, number) != 0 && errno != ESRCH {
            throw DaemonError(
                .configuration, path: "process group \(leader)", "kill failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Whether every process in the group is stopped (T) or already dead (a zombie runs no code).
    static func groupStopped(_ leader: Int32) -> Bool {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return false }
        for entry in entries {
            guard let pid = Int32(entry), getpgid(pid) == leader else { continue }
            guard let stat = ProcessStat.read(pid) else { continue }
            guard "TtZX".contains(stat.state) else { return false }
        }
        return true
    }
}
