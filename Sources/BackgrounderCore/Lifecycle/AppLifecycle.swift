/// Identifies one finite-length background task, as `UIBackgroundTaskIdentifier`.
public typealias BackgroundTaskID = Int

/// Why the daemon ends an app.
public enum TerminationReason: String, Sendable, Hashable, Codable {
    /// Its finite-length tasks were still open at the deadline (iOS's watchdog).
    case backgroundTaskOverran = "background task overran"
    /// An app-refresh task's window ran out before the app said it completed: iOS's watchdog
    /// ends the app then. Other windows (a processing task's) only suspend it.
    case refreshTaskOverran = "app refresh task overran"
    /// It declares `UIApplicationExitsOnSuspend`, so it ends where others are suspended.
    case exitsOnSuspend = "exits on suspend"
    /// Its bundle was removed (deleted, or its package uninstalled) while it ran.
    case bundleRemoved = "bundle removed"
    /// Its bundle was replaced or changed while it ran (an update): the next launch runs the new one.
    case bundleReplaced = "bundle replaced"
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
        /// These event windows are nearly over: call their expiration handlers.
        case expireWindows([EventWindowID])
        /// These event windows ran out (or the app's process went) without being completed.
        case windowsClosed([EventWindowID])
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
    /// Assertions other than tasks that keep the app running in the background.
    public private(set) var assertions: Set<BackgroundAssertion> = []
    /// Set once the daemon decided to end the app; it stays until the process is gone.
    public private(set) var terminating: TerminationReason?
    /// Open event windows: background time the system gave it for an event.
    public private(set) var windows: [EventWindowID: EventWindow] = [:]

    /// Whether the person wants the app in front (opened it, or launched it there).
    public private(set) var wantsForeground = false
    private var enteredBackgroundAt: Duration?
    private var lastAssertionEndedAt: Duration?
    /// Tasks whose expiration handlers were already called.
    private var expiredTasks: Set<BackgroundTaskID> = []
    private var nextTaskID: BackgroundTaskID = 1
    /// When a background launch must have checked in by (see ``checkInDue``).
    private var checkInDeadline: Duration?

    /// How long a background launch may take to check in before it is suspended, unless the
    /// daemon says otherwise (`--check-in-deadline`).
    public static let defaultCheckInDeadline: Duration = .seconds(10)
    /// Open finite-length tasks one app may hold at once: far more than any app needs, and a
    /// bound on what an app can make the daemon keep and list.
    public static let maximumOpenTasks = 32
    /// The longest task name accepted, in UTF-8 bytes.
    public static let maximumTaskNameBytes = 256

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
    /// - Parameter checkInDeadline: How long a background launch may run without checking
    ///   in: an app that never does is suspended then, so it cannot run on unchecked in the
    ///   background by simply not calling (a foreground launch is in front of the person).
    public mutating func launched(
        foreground: Bool, now: Duration, checkInDeadline: Duration = AppLifecycle.defaultCheckInDeadline
    ) {
        self = AppLifecycle(manifest: manifest, policy: policy)
        state = .inactive
        wantsForeground = foreground
        if !foreground {
            enteredBackgroundAt = now
            self.checkInDeadline = now + checkInDeadline
        }
    }

    /// A process an earlier run of the daemon started, taken over by this one (the daemon
    /// restarted with apps running): it keeps running, or stays suspended, and is treated as
    /// a fresh launch that has not checked in on this run yet. An app that was in front is
    /// in front again once it reconnects; one in the background has the check-in deadline to
    /// reconnect, then its grace and task budget start over.
    /// - Parameters:
    ///   - suspended: Whether it was frozen (and still is).
    ///   - foreground: Whether the person had it in front.
    public mutating func adopted(
        suspended: Bool, foreground: Bool, now: Duration,
        checkInDeadline: Duration = AppLifecycle.defaultCheckInDeadline
    ) {
        launched(foreground: foreground && !suspended, now: now, checkInDeadline: checkInDeadline)
        if suspended {
            state = .suspended
            self.checkInDeadline = nil
        }
    }

    /// The moment a background launch that has not checked in yet is suspended (or, for an
    /// app that exits on suspend, ended); `nil` once it checked in or came to the foreground,
    /// and while it holds a task or an assertion (which the daemon grants only to an app that
    /// talks to it; the task budget and the grace then apply once it checks in).
    public var checkInDue: Duration? {
        guard state == .inactive, !wantsForeground, terminating == nil, tasks.isEmpty, assertions.isEmpty
        else { return nil }
        return checkInDeadline
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
            // An app that exits on suspend has no background phase: it could begin tasks or
            // take assertions there, and run on.
            if manifest.exitsOnSuspend && terminating == nil {
                terminating = .exitsOnSuspend
                state = .background
                enteredBackgroundAt = now
                return resign + closeAllWindows() + [.deliver(.willTerminate), .terminate(.exitsOnSuspend)]
            }
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
            actions += closeAllWindows()
            actions += [.deliver(.willEnterForeground), .deliver(.didBecomeActive)]
        case .inactive:
            // A background launch the person opened before it checked in.
            actions += closeAllWindows()
        case .active, .notRunning:
            break
        }
        return actions
    }

    /// Ends every window at once (the app came to the front, or is being ended): they no
    /// longer measure anything.
    private mutating func closeAllWindows() -> [Action] {
        guard !windows.isEmpty else { return [] }
        let ids = windows.keys.sorted()
        windows = [:]
        return [.windowsClosed(ids)]
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
    /// - Returns: Its identifier, or `nil` (iOS's `.invalid`) when the app has no time left,
    ///   runs no code, or the task is refused (``taskRefusal(named:)``).
    public mutating func beginTask(named name: String, now: Duration) -> BackgroundTaskID? {
        guard state != .suspended, state != .notRunning, terminating == nil else { return nil }
        guard taskRefusal(named: name) == nil else { return nil }
        if let remaining = backgroundTimeRemaining(now: now), remaining <= .zero { return nil }
        let id = nextTaskID
        nextTaskID += 1
        tasks[id] = name
        return id
    }

    /// Why a task with this name would be refused whatever the time left: too many open, or
    /// the name too long. `nil` when it may begin.
    public func taskRefusal(named name: String) -> TaskRefusal? {
        if tasks.count >= Self.maximumOpenTasks { return .tooManyTasks(limit: Self.maximumOpenTasks) }
        if name.utf8.count > Self.maximumTaskNameBytes {
            return .nameTooLong(bytes: name.utf8.count, limit: Self.maximumTaskNameBytes)
        }
        return nil
    }

    /// Ends a task; ending an unknown one does nothing, as on iOS.
    public mutating func endTask(_ id: BackgroundTaskID, now: Duration) -> [Action] {
        guard tasks.removeValue(forKey: id) != nil else { return [] }
        if tasks.isEmpty && assertions.isEmpty { lastAssertionEndedAt = now }
        return evaluate(now: now)
    }

    /// Takes or releases an assertion (an audio stream, location updates). While one is
    /// held, background time is unlimited, as on iOS; when the last is released in the
    /// background, the usual budget and grace start from that moment.
    public mutating func setAssertion(_ assertion: BackgroundAssertion, held: Bool, now: Duration) -> [Action] {
        if held {
            // Only running code takes an assertion; a suspended app runs none.
            guard state == .inactive || state == .active || state == .background, terminating == nil else { return [] }
            assertions.insert(assertion)
            return []
        }
        guard assertions.remove(assertion) != nil else { return [] }
        if assertions.isEmpty {
            if state == .background {
                enteredBackgroundAt = now
                expiredTasks = []
            }
            if tasks.isEmpty { lastAssertionEndedAt = now }
        }
        return evaluate(now: now)
    }

    // MARK: Event windows

    /// Opens an event window: the app may run in the background until `now + length`, hears
    /// its expiration shortly before, and is suspended when it ends unless something else
    /// keeps it running. The caller wakes a suspended app first.
    /// - Returns: Whether the window opened (an app being terminated gets none).
    public mutating func openWindow(
        _ id: EventWindowID, kind: EventWindowKind, length: Duration, now: Duration
    ) -> Bool {
        // Only time in the background is counted: an app in front has all the time it wants,
        // and a suspended one must be woken first.
        let inBackground = state == .background || (state == .inactive && !wantsForeground)
        guard inBackground, terminating == nil, length > .zero else { return false }
        windows[id] = EventWindow(kind: kind, deadline: now + length, warning: min(warning, length / 2))
        return true
    }

    /// The app completed a window early (its completion handler ran). With nothing else
    /// keeping it in the background, it is suspended now: it said it is done.
    /// - Returns: The actions, or `nil` when the window is not open (completed twice, or after
    ///   it ran out).
    public mutating func completeWindow(_ id: EventWindowID, now: Duration) -> [Action]? {
        guard windows.removeValue(forKey: id) != nil else { return nil }
        return evaluate(now: now) + suspendIfIdle(now: now)
    }

    /// Cuts a window short (a processing task's condition broke, or `bgctl simulate expire`):
    /// it hears its expiration now and ends after the warning.
    public mutating func cutWindow(_ id: EventWindowID, now: Duration) -> [Action] {
        guard var window = windows[id] else { return [] }
        window.deadline = min(window.deadline, now + window.warning)
        window.warned = false
        windows[id] = window
        return evaluate(now: now)
    }

    /// Closes windows that ran out and warns those nearly over.
    private mutating func evaluateWindows(now: Duration) -> [Action] {
        guard !windows.isEmpty else { return [] }
        var actions: [Action] = []
        let warn = windows.filter { !$0.value.warned && now >= $0.value.deadline - $0.value.warning }.keys.sorted()
        for id in warn { windows[id]?.warned = true }
        if !warn.isEmpty { actions.append(.expireWindows(warn)) }
        let closing = windows.filter { now >= $0.value.deadline }.keys.sorted()
        let refreshOverran = closing.contains { windows[$0]?.kind == .appRefresh }
        for id in closing { windows[id] = nil }
        if !closing.isEmpty {
            actions.append(.windowsClosed(closing))
            // Warned, and still not done: ended, as iOS does, and relaunched for its next task.
            let inBackground = state == .background || (state == .inactive && !wantsForeground)
            if refreshOverran, inBackground, terminating == nil {
                terminating = .refreshTaskOverran
                return actions + [.terminate(.refreshTaskOverran)]
            }
            // Tasks begun in a window get at least the warning's length after it (those not
            // warned yet hear their expiration now), rather than being ended unwarned.
            if windows.isEmpty, !tasks.isEmpty, let since = enteredBackgroundAt, since + budget < now + warning {
                enteredBackgroundAt = now + warning - budget
            }
        }
        return actions
    }

    /// Suspends (or ends) a background app that nothing keeps running any more.
    private mutating func suspendIfIdle(now: Duration) -> [Action] {
        guard state == .background, terminating == nil, windows.isEmpty, tasks.isEmpty, assertions.isEmpty,
            checkInDue == nil
        else { return [] }
        if manifest.exitsOnSuspend {
            terminating = .exitsOnSuspend
            return [.deliver(.willTerminate), .terminate(.exitsOnSuspend)]
        }
        state = .suspended
        return [.suspend]
    }

    // MARK: Time

    /// Time left for background tasks, or `nil` when unlimited (in the foreground, or while an
    /// assertion such as audio is held).
    public func backgroundTimeRemaining(now: Duration) -> Duration? {
        backgroundDeadline.map { max(.zero, $0 - now) }
    }

    /// When the app's background time ends: its task budget or its last event window,
    /// whichever is later; `nil` when unlimited (in the foreground, or while an assertion is
    /// held). The daemon tells the app whenever this moves.
    public var backgroundDeadline: Duration? {
        guard state == .background || state == .suspended, assertions.isEmpty, let since = enteredBackgroundAt
        else { return nil }
        return max(since + budget, windows.values.map(\.deadline).max() ?? since)
    }

    /// The next moment ``evaluate(now:)`` could act, or `nil` when only an event can change things.
    public var nextDeadline: Duration? {
        let windowTimes = windows.values.map { $0.warned ? $0.deadline : $0.deadline - $0.warning }
        if let checkInDue { return (windowTimes + [checkInDue]).min() }
        guard windows.isEmpty else { return windowTimes.min() }
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
        let windowActions = evaluateWindows(now: now)
        if terminating != nil { return windowActions }
        let windowRanOut = windowActions.contains { if case .windowsClosed = $0 { true } else { false } }
        return windowActions + evaluateBackgroundRules(now: now, windowRanOut: windowRanOut)
    }

    private mutating func evaluateBackgroundRules(now: Duration, windowRanOut: Bool) -> [Action] {
        if let checkInDue {
            // Launched into the background and silent since: it has no reason to run.
            guard now >= checkInDue else { return [] }
            let closed = closeAllWindows()
            if manifest.exitsOnSuspend {
                terminating = .exitsOnSuspend
                return closed + [.terminate(.exitsOnSuspend)]
            }
            state = .suspended
            return closed + [.suspend]
        }
        // An open event window keeps the app running until it ends.
        guard windows.isEmpty, state == .background, terminating == nil, let since = enteredBackgroundAt else {
            return []
        }
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
        // A window that ran out was the app's time: it was warned, and is suspended now.
        if windowRanOut { return suspendIfIdle(now: now) }
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
        actions += closeAllWindows()
        // Jetsam ends apps without notice; a person's force quit and shutdown warn them.
        if reason != .memoryPressure && state != .suspended { actions.append(.deliver(.willTerminate)) }
        actions.append(.terminate(reason))
        return actions
    }
}

/// Why a finite-length task was refused, whatever the app's time left.
public enum TaskRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The app already holds this many open tasks.
    case tooManyTasks(limit: Int)
    /// The name is longer than the limit, in UTF-8 bytes.
    case nameTooLong(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .tooManyTasks(let limit):
            "the app already has \(limit) open background tasks, the most an app may have; end one first"
        case .nameTooLong(let bytes, let limit):
            "the task name is \(bytes) bytes long; the most is \(limit)"
        }
    }
}
