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

    /// Remote commands kept for an app that has not checked in yet.
    public static let maximumPendingRemoteCommands = 16

    /// The default application log size: 16 MiB.
    public static let defaultAppLogBytes = 16 << 20

    /// Creates the limits; the defaults are the documented ones.
    public init(
        checkInDeadline: Duration = AppLifecycle.defaultCheckInDeadline,
        appLogBytes: Int = AppLimits.defaultAppLogBytes
    ) {
        self.checkInDeadline = checkInDeadline
        self.appLogBytes = appLogBytes
    }
}
