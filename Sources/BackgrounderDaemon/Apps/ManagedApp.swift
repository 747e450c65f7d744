import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem
import NIOCore

/// What the daemon tracks for one app: its life cycle, its process, its connection.
struct ManagedApp: Sendable {
    /// The bundle as loaded.
    var bundle: ValidatedBundle
    /// The iOS state machine and background-time rules.
    var lifecycle: AppLifecycle
    /// The running process, if any.
    var process: Supervisor.Launched?
    /// Why it was launched last.
    var launchReason: LaunchReason = .user
    /// The app's own connection, once it checked in: where notices go.
    var channel: (any Channel)?
    /// The timer that calls `evaluate` at the life cycle's next deadline.
    var timer: Task<Void, Never>?
    /// Its recent crashes: enough within the policy's window refuse launches.
    var crashLoop = CrashLoop()
    /// How the last process ended.
    var lastExit: AppExit?
    /// Why launches are refused, while crash-loop throttling is on.
    var throttledUntil: Duration?
    /// Events for a process launched for them, until it checks in and can hear them.
    var pendingEvents: [EventNotice] = []
    /// The background deadline the app was last told of (``AppManager/tellBackgroundTimeIfChanged(_:)``).
    var toldBackgroundDeadline: Duration?
    var toldBackgroundTime = false
    /// What the store last recorded of the process, for adoption by a later run.
    var recorded: (pid: Int32, suspended: Bool, foreground: Bool)?

    init(bundle: ValidatedBundle, policy: any BackgroundPolicy) {
        self.bundle = bundle
        self.lifecycle = AppLifecycle(manifest: bundle.manifest, policy: policy)
    }

    var identifier: String { bundle.manifest.bundleIdentifier }

    /// Takes a bundle that changed (reloaded, or re-validated at launch) with a fresh life
    /// cycle for its manifest; called only while no process runs.
    mutating func adopt(_ newer: ValidatedBundle, policy: any BackgroundPolicy) {
        guard newer != bundle else { return }
        bundle = newer
        lifecycle = AppLifecycle(manifest: newer.manifest, policy: policy)
    }
}
