/// Identifies one finite-length background task, as `UIBackgroundTaskIdentifier`.
public typealias BackgroundTaskID = Int

/// Why the daemon ends an app.
public enum TerminationReason: String, Sendable, Hashable, Codable {
    /// Its finite-length tasks were still open at the deadline (iOS's watchdog).
    case backgroundTaskOverran = "background task overran"
    /// It declares `UIApplicationExitsOnSuspend`, so it ends where others are suspended.
    case exitsOnSuspend = "exits on suspend"
    /// A person force-quit it.
    case forceQuit = "force quit"
    /// The system needed its memory (jetsam).
    case memoryPressure = "memory pressure"
    /// The daemon is shutting down.
    case daemonShutdown = "daemon shutdown"
}

/// One app's life cycle: the iOS state machine and the background-time rules, with time
/// passed in so tests drive it with a test clock.
///
/// Each mutating call returns the actions the daemon must carry out, in order. The daemon
/// calls ``evaluate(now:)`` at ``nextDeadline`` (one timer per app, no polling).
public struct AppLifecycle: Sendable {
    /// Something the daemon must do for this app.
    public enum Action: Sendable, Hashable {
        /// Tell the app about a transition.
        case deliver(LifecycleEvent)
        /// Call the expiration handlers of these tasks: the deadline is near.
        case expireTasks([BackgroundTaskID])
        /// Freeze the app.
        case suspend
        /// Thaw the app.
        case resume
        /// End the app.
        case terminate(TerminationReason)
    }

    /// The app's manifest.
    public let manifest: AppManifest
    /// The policy in force.
    public let policy: any BackgroundPolicy
    /// The current state.
    public private(set) var state: ApplicationState = .notRunning
    /// Open finite-length tasks and their names.
    public private(set) var tasks: [BackgroundTaskID: String] = [:]
    /// Assertions other than tasks that keep the app running in the background (audio,
    /// location), by name.
    public private(set) var assertions: Set<String> = []
    /// Set once the daemon decided to end the app; it stays until the process is gone.
    public private(set) var terminating: TerminationReason?

    private var wantsForeground = false
    private var enteredBackgroundAt: Duration?
    private var lastAssertionEndedAt: Duration?
    /// Tasks whose expiration handlers were already called.
    private var expiredTasks: Set<BackgroundTaskID> = []
    private var nextTaskID: BackgroundTaskID = 1

    /// Creates the life cycle of an app that is not running.
    public init(manifest: AppManifest, policy: any BackgroundPolicy) {
        self.manifest = manifest
        self.policy = policy
    }

    private var budget: Duration { policy.backgroundTaskBudget(for: manifest) }
    private var warning: Duration { policy.expirationWarning(for: manifest) }
    private var grace: Duration { policy.suspendGrace(for: manifest) }

    // MARK: Process events

    /// The process was started, for the foreground (a person opened it) or the background
    /// (an event relaunched it). The app is `inactive` until it checks in.
    public mutating func launched(foreground: Bool, now: Duration) {
        self = AppLifecycle(manifest: manifest, policy: policy)
        state = .inactive
        wantsForeground = foreground
        if !foreground {
            enteredBackgroundAt = now
        }
    }

    /// The app connected and finished launching.
    public mutating func checkedIn(now: Duration) -> [Action] {
        guard state == .inactive else { return [] }
        if wantsForeground {
            state = .active
            return [.deliver(.didBecomeActive)]
        }
        state = .background
        enteredBackgroundAt = enteredBackgroundAt ?? now
        return [.deliver(.didEnterBackground)] + evaluate(now: now)
    }

    /// The process is gone (exit, crash or kill).
    public mutating func exited() {
        self = AppLifecycle(manifest: manifest, policy: policy)
    }

    // MARK: User actions

    /// The app leaves the foreground (`bgctl home`, `bgctl lock`, another app opened).
    public mutating func moveToBackground(now: Duration) -> [Action] {
        wantsForeground = false
        switch state {
        case .active, .inactive:
            let resign: [Action] = state == .active ? [.deliver(.willResignActive)] : []
            state = .background
            enteredBackgroundAt = now
            lastAssertionEndedAt = nil
            expiredTasks = []
            return resign + [.deliver(.didEnterBackground)] + evaluate(now: now)
        case .background, .suspended, .notRunning:
            return []
        }
    }

    /// The app comes to the foreground (`bgctl open`, `bgctl unlock`).
    public mutating func moveToForeground(now: Duration) -> [Action] {
        // An app being terminated (told willTerminate, or killed) does not come back.
        guard terminating == nil else { return [] }
        wantsForeground = true
        var actions: [Action] = []
        switch state {
        case .suspended:
            actions.append(.resume)
            fallthrough
        case .background:
            state = .active
            enteredBackgroundAt = nil
            expiredTasks = []
            actions += [.deliver(.willEnterForeground), .deliver(.didBecomeActive)]
        case .inactive, .active, .notRunning:
            break
        }
        return actions
    }

    /// An event woke the suspended app: it is thawed for a new stretch of background time,
    /// after which the usual rules (grace, tasks) apply again.
    public mutating func wake(now: Duration) -> [Action] {
        guard state == .suspended, terminating == nil else { return [] }
        state = .background
        enteredBackgroundAt = now
        lastAssertionEndedAt = nil
        expiredTasks = []
        return [.resume]
    }

    // MARK: Assertions

    /// Begins a finite-length background task.
    /// - Returns: Its identifier, or `nil` (iOS's `.invalid`) when the app has no time left.
    public mutating func beginTask(named name: String, now: Duration) -> BackgroundTaskID? {
        guard state != .suspended, state != .notRunning, terminating == nil else { return nil }
        if let remaining = backgroundTimeRemaining(now: now), remaining <= .zero { return nil }
        let id = nextTaskID
        nextTaskID += 1
        tasks[id] = name
        return id
    }

    /// Ends a task; ending an unknown one does nothing, as on iOS.
    public mutating func endTask(_ id: BackgroundTaskID, now: Duration) -> [Action] {
        guard tasks.removeValue(forKey: id) != nil else { return [] }
        if tasks.isEmpty && assertions.isEmpty { lastAssertionEndedAt = now }
        return evaluate(now: now)
    }

    /// Takes or releases a named assertion (an audio stream, location updates). While one is
    /// held, background time is unlimited, as on iOS; when the last is released in the
    /// background, the usual budget and grace start from that moment.
    public mutating func setAssertion(_ name: String, held: Bool, now: Duration) -> [Action] {
        if held {
            // Only running code takes an assertion; a suspended app runs none.
            guard state == .inactive || state == .active || state == .background, terminating == nil else { return [] }
            assertions.insert(name)
            return []
        }
        guard assertions.remove(name) != nil else { return [] }
        if assertions.isEmpty {
            if state == .background {
                enteredBackgroundAt = now
                expiredTasks = []
            }
            if tasks.isEmpty { lastAssertionEndedAt = now }
        }
        return evaluate(now: now)
    }

    // MARK: Time

    /// Time left for background tasks, or `nil` when unlimited (in the foreground, or while an
    /// assertion such as audio is held).
    public func backgroundTimeRemaining(now: Duration) -> Duration? {
        guard state == .background || state == .suspended, assertions.isEmpty, let since = enteredBackgroundAt
        else { return nil }
        return max(.zero, since + budget - now)
    }

    /// The next moment ``evaluate(now:)`` could act, or `nil` when only an event can change things.
    public var nextDeadline: Duration? {
        guard state == .background, terminating == nil, assertions.isEmpty, let since = enteredBackgroundAt
        else { return nil }
        if !tasks.isEmpty {
            let unwarned = tasks.keys.contains { !expiredTasks.contains($0) }
            return unwarned ? since + budget - warning : since + budget
        }
        return max(since, lastAssertionEndedAt ?? since) + grace
    }

    /// Applies the background rules at `now`.
    public mutating func evaluate(now: Duration) -> [Action] {
        guard state == .background, terminating == nil, let since = enteredBackgroundAt else { return [] }
        // An assertion (audio, location) means unlimited background time.
        guard assertions.isEmpty else { return [] }
        if !tasks.isEmpty {
            if now >= since + budget {
                terminating = .backgroundTaskOverran
                return [.terminate(.backgroundTaskOverran)]
            }
            if now >= since + budget - warning {
                // Every task hears its expiration once, even one begun after the others did.
                let unwarned = tasks.keys.filter { !expiredTasks.contains($0) }.sorted()
                guard !unwarned.isEmpty else { return [] }
                expiredTasks.formUnion(unwarned)
                return [.expireTasks(unwarned)]
            }
            return []
        }
        let quietSince = max(since, lastAssertionEndedAt ?? since)
        guard now >= quietSince + grace else { return [] }
        if manifest.exitsOnSuspend {
            terminating = .exitsOnSuspend
            return [.deliver(.willTerminate), .terminate(.exitsOnSuspend)]
        }
        state = .suspended
        return [.suspend]
    }

    /// The daemon decided to end the app for another reason (force quit, memory pressure).
    public mutating func terminate(_ reason: TerminationReason) -> [Action] {
        guard state != .notRunning, terminating == nil else { return [] }
        terminating = reason
        var actions: [Action] = []
        if state == .suspended { actions.append(.resume) }
        // Jetsam ends apps without notice; a person's force quit and shutdown warn them.
        if reason != .memoryPressure && state != .suspended { actions.append(.deliver(.willTerminate)) }
        actions.append(.terminate(reason))
        return actions
    }
}
