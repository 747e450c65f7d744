import BackgrounderCore
import Testing

/// Manifests, policies and apps in a known state for the life-cycle tests.
///
/// Times are `Duration`s on a test clock whose origin is arbitrary; `.zero` is as good a
/// start as any.
enum LifecycleFixture {
    /// An ordinary app: no background modes, suspends when it runs out of reasons to run.
    static let manifest = AppManifest(
        bundleIdentifier: "org.example.lifecycle",
        name: "Lifecycle",
        executable: "Lifecycle"
    )

    /// An app that declares `UIApplicationExitsOnSuspend`.
    static let exitsOnSuspendManifest = AppManifest(
        bundleIdentifier: "org.example.exits",
        name: "Exits",
        executable: "Exits",
        exitsOnSuspend: true
    )

    /// iOS's numbers: 5 s grace, 30 s task budget, expiration handlers 5 s before it ends.
    static let policy = StandardPolicy()

    /// An app that is not running.
    static func notRunning(
        manifest: AppManifest = manifest,
        policy: any BackgroundPolicy = policy
    ) -> AppLifecycle {
        AppLifecycle(manifest: manifest, policy: policy)
    }

    /// An app a person opened at `now`, checked in at the same moment: `active`.
    static func active(
        at now: Duration = .zero,
        manifest: AppManifest = manifest,
        policy: any BackgroundPolicy = policy
    ) -> AppLifecycle {
        var app = AppLifecycle(manifest: manifest, policy: policy)
        app.launched(foreground: true, now: now)
        _ = app.checkedIn(now: now)
        return app
    }

    /// An app opened at `now` with tasks named `taskNames` begun in the foreground, then
    /// sent home at the same moment.
    static func background(
        at now: Duration = .zero,
        tasks taskNames: [String] = [],
        manifest: AppManifest = manifest,
        policy: any BackgroundPolicy = policy
    ) -> AppLifecycle {
        var app = active(at: now, manifest: manifest, policy: policy)
        for name in taskNames {
            _ = app.beginTask(named: name, now: now)
        }
        _ = app.moveToBackground(now: now)
        return app
    }

    /// An app sent home at `now` with no tasks and suspended once its grace ran out.
    static func suspended(
        at now: Duration = .zero,
        manifest: AppManifest = manifest,
        policy: any BackgroundPolicy = policy
    ) -> AppLifecycle {
        var app = background(at: now, manifest: manifest, policy: policy)
        _ = app.evaluate(now: now + policy.suspendGrace(for: manifest))
        return app
    }

    /// An app in `state`, reached the ordinary way at time zero.
    static func app(in state: ApplicationState) -> AppLifecycle {
        switch state {
        case .notRunning:
            return notRunning()
        case .inactive:
            var app = notRunning()
            app.launched(foreground: true, now: .zero)
            return app
        case .active:
            return active()
        case .background:
            return background()
        case .suspended:
            return suspended()
        }
    }
}

extension AppLifecycle {
    /// Begins a task that must be granted, recording an issue where it is not.
    mutating func beginGrantedTask(
        named name: String,
        now: Duration,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> BackgroundTaskID {
        let id = beginTask(named: name, now: now)
        return try #require(id, sourceLocation: sourceLocation)
    }
}
