import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
package import NIOCore

/// What the daemon tracks for one app: its life cycle, its process, its connection.
package struct ManagedApp: Sendable {
    /// The bundle as loaded.
    package var bundle: ValidatedBundle
    /// The iOS state machine and background-time rules.
    package var lifecycle: AppLifecycle
    /// The running process, if any.
    package var process: Supervisor.Launched?
    /// Why it was launched last.
    package var launchReason: LaunchReason = .user
    /// The app's own connection, once it checked in: where notices go.
    package var channel: (any Channel)?
    /// Its recent crashes: enough within the policy's window refuse launches.
    package var crashLoop = CrashLoop()
    /// How the last process ended.
    package var lastExit: AppExit?
    /// Why launches are refused, while crash-loop throttling is on.
    package var throttledUntil: Duration?
    /// Events for a process launched for them, until it checks in and can hear them.
    package var pendingEvents: [EventNotice] = []
    /// The background deadline the app was last told of (``AppManager/tellBackgroundTimeIfChanged(_:)``).
    package var toldBackgroundDeadline: Duration?
    package var toldBackgroundTime = false
    /// Its freezes between refills of its audio ring (``RefillFreeze``), outside the life cycle.
    package var refill = RefillFreeze()
    /// The bundle's files as they were when the process started (or was adopted): a scan
    /// that finds them changed ends the app, as an update does on iOS.
    package var launchedFingerprint: BundleFingerprint?
    /// When it last heard a memory warning (core time): a running app is ended for memory only
    /// after a warning from an earlier pressure.
    package var memoryWarnedAt: Duration?
    /// What the store last recorded of the process, for adoption by a later run.
    package var recorded: (pid: Int32, suspended: Bool, foreground: Bool)?

    package init(bundle: ValidatedBundle, policy: any BackgroundPolicy) {
        self.bundle = bundle
        self.lifecycle = AppLifecycle(manifest: bundle.manifest, policy: policy)
    }

    package var identifier: BundleID { bundle.manifest.bundleIdentifier }

    /// Takes a bundle that changed (reloaded, or re-validated at launch) with a fresh life
    /// cycle for its manifest; called only while no process runs.
    package mutating func adopt(_ newer: ValidatedBundle, policy: any BackgroundPolicy) {
        guard newer != bundle else { return }
        bundle = newer
        lifecycle = AppLifecycle(manifest: newer.manifest, policy: policy)
    }
}
