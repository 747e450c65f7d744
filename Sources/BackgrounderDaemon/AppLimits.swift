public import BackgrounderCore

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

    /// Remote commands kept for an app that has not checked in yet.
    public static let maximumPendingRemoteCommands = 16

    /// The default application log size: 16 MiB.
    public static let defaultAppLogBytes = 16 << 20
    /// The default process limit: far above what an app's helpers need, far below the
    /// kernel's pid space.
    public static let defaultProcesses = 512

    /// Creates the limits; the defaults are the documented ones.
    public init(
        checkInDeadline: Duration = AppLifecycle.defaultCheckInDeadline,
        appLogBytes: Int = AppLimits.defaultAppLogBytes,
        processes: Int = AppLimits.defaultProcesses
    ) {
        self.checkInDeadline = checkInDeadline
        self.appLogBytes = appLogBytes
        self.processes = processes
    }
}
