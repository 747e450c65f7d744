public import BackgrounderCore

#if canImport(Glibc)
    import Glibc
#endif

/// Bounds on what one app can make the daemon do or keep, beyond the policy's time rules.
/// Each refusal names its limit; docs/PROTOCOL.md ("Limits") lists them all.
public struct AppLimits: Sendable {
    /// How long a background launch may run without checking in before it is suspended
    /// (`--check-in-deadline`).
    public var checkInDeadline: Duration
    /// Bytes of output an app's log may hold before it is rotated (`--app-log-limit`); one
    /// rotation is kept, so an app holds at most twice this on disk.
    public var appLogBytes: Int
    /// The most processes an app may have at once, threads included (`--app-process-limit`),
    /// where it runs under a uid of its own (a root daemon): RLIMIT_NPROC counts by uid.
    public var processes: Int
    /// The most memory an app may use (`--app-memory-limit`), in bytes: each of its processes
    /// may map at most this much data (RLIMIT_DATA, in every mode), and where the memory
    /// controller is delegated its cgroup as a whole may hold at most this (`memory.max`).
    public var memory: Int

    /// Remote commands kept for an app that has not checked in yet.
    public static let maximumPendingRemoteCommands = 16

    /// The default application log size: 16 MiB.
    public static let defaultAppLogBytes = 16 << 20
    /// The default process limit: far above what an app's helpers need, far below the
    /// kernel's pid space.
    public static let defaultProcesses = 512
    /// The default memory limit: half the machine's memory, as iOS lets an app in front take
    /// about half a device's before jetsam ends it; what is left keeps the person's desktop
    /// and the daemon alive whatever one app does.
    public static var defaultMemory: Int {
        let pages = sysconf(Int32(_SC_PHYS_PAGES))
        let pageSize = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, pageSize > 0 else { return 4 << 30 }
        return pages * pageSize / 2 / (1 << 20) * (1 << 20)
    }

    /// Creates the limits; the defaults are the documented ones.
    public init(
        checkInDeadline: Duration = AppLifecycle.defaultCheckInDeadline,
        appLogBytes: Int = AppLimits.defaultAppLogBytes,
        processes: Int = AppLimits.defaultProcesses,
        memory: Int = AppLimits.defaultMemory
    ) {
        self.checkInDeadline = checkInDeadline
        self.appLogBytes = appLogBytes
        self.processes = processes
        self.memory = memory
    }
}
