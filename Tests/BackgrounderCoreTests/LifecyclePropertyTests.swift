import BackgrounderCore
import BackgrounderTestSupport
import Testing

/// One policy and manifest for the random walks, named for the test report.
struct LifecycleScenario: Sendable, CustomTestStringConvertible {
    var name: String
    var policy: StandardPolicy
    var manifest: AppManifest = LifecycleFixture.manifest

    var testDescription: String { name }

    static let all: [LifecycleScenario] = [
        LifecycleScenario(name: "iOS numbers", policy: StandardPolicy()),
        LifecycleScenario(name: "classic budget", policy: StandardPolicy(taskBudget: .seconds(180))),
        LifecycleScenario(
            name: "grace longer than the budget",
            policy: StandardPolicy(suspendGrace: .seconds(40), taskBudget: .seconds(30))
        ),
        LifecycleScenario(name: "no warning", policy: StandardPolicy(expirationWarning: .zero)),
        LifecycleScenario(name: "no grace", policy: StandardPolicy(suspendGrace: .zero)),
        LifecycleScenario(
            name: "exits on suspend",
            policy: StandardPolicy(),
            manifest: LifecycleFixture.exitsOnSuspendManifest
        ),
    ]
}

/// A random walk through an app's life, driven the way the daemon drives it: operations at
/// increasing times, and ``AppLifecycle/evaluate(now:)`` whenever ``AppLifecycle/nextDeadline``
/// comes due. After every step it checks what must always hold.
struct LifecycleWalk {
    var app: AppLifecycle
    var now: Duration = .zero
    var random: SeededGenerator
    let scenario: LifecycleScenario
    /// Whether expiration handlers were called in the current stay in the background.
    var expiredThisStay: Set<BackgroundTaskID> = []
    /// The next event window's identifier, and the longest window opened so far.
    var nextWindow: EventWindowID = 1
    var longestWindow: Duration = .zero
    /// Every action the walk has seen, with task identifiers left out.
    var seenActions: Set<AppLifecycle.Action> = []

    init(scenario: LifecycleScenario, seed: UInt64) {
        self.scenario = scenario
        app = AppLifecycle(manifest: scenario.manifest, policy: scenario.policy)
        random = SeededGenerator(seed: seed)
    }

    private var budget: Duration { scenario.policy.backgroundTaskBudget(for: scenario.manifest) }

    // MARK: Steps

    mutating func step() {
        // A terminated process goes away soon after; the daemon then reports its exit.
        if app.terminating != nil {
            app.exited()
            check(after: [], previous: .notRunning)
            return
        }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<15: wait()
        case 15..<27: apply { $0.moveToBackground(now: $1) }
        case 27..<39: open()
        case 39..<55: begin()
        case 55..<70: end()
        case 70..<75: apply { $0.evaluate(now: $1) }
        case 75..<78: apply { $0.wake(now: $1) }
        case 78..<84: holdAssertion()
        case 84..<92: releaseAssertion()
        case 92..<94: apply { app, _ in app.terminate(.forceQuit) }
        case 94..<95: apply { app, _ in app.terminate(.memoryPressure) }
        case 95..<97: openWindow()
        case 97..<98: closeWindow()
        default:
            let previous = app.state
            app.exited()
            check(after: [], previous: previous)
        }
        advance(by: .milliseconds(Int.random(in: 0..<3_000, using: &random)))
    }

    /// Lets time pass with no operation, up to a little more than the whole budget: only
    /// timers fire.
    private mutating func wait() {
        let longest = Int((budget + .seconds(10)) / .milliseconds(1))
        advance(by: .milliseconds(Int.random(in: 0..<longest, using: &random)))
    }

    private mutating func open() {
        if app.state == .notRunning {
            let foreground = Bool.random(using: &random)
            app.launched(foreground: foreground, now: now)
            check(after: [], previous: .notRunning)
            if foreground || Bool.random(using: &random) {
                apply { $0.checkedIn(now: $1) }
            }
        } else if app.state == .inactive {
            apply { $0.checkedIn(now: $1) }
        } else {
            apply { $0.moveToForeground(now: $1) }
        }
    }

    private mutating func begin() {
        let before = app.tasks
        // A refused name or count is not a matter of time.
        let canRunCode =
            app.state != .suspended && app.state != .notRunning && app.taskRefusal(named: "task") == nil
        let remaining = app.backgroundTimeRemaining(now: now)
        let id = app.beginTask(named: "task", now: now)
        if let id {
            #expect(canRunCode)
            #expect(before[id] == nil, "a task identifier is never reused while open")
            #expect(app.tasks.count == before.count + 1)
            if let remaining { #expect(remaining > .zero) }
        } else {
            #expect(app.tasks == before)
            #expect(!canRunCode || (remaining.map { $0 <= .zero } ?? false))
        }
        fireDueTimers()
    }

    private mutating func end() {
        let open = app.tasks.keys.sorted()
        let id =
            open.isEmpty || Int.random(in: 0..<5, using: &random) == 0
            ? Int.random(in: 100..<200, using: &random) : open[Int.random(in: 0..<open.count, using: &random)]
        let known = app.tasks[id] != nil
        let previous = app.state
        let actions = app.endTask(id, now: now)
        if !known { #expect(actions == []) }
        #expect(app.tasks[id] == nil)
        check(after: actions, previous: previous)
        fireDueTimers()
    }

    /// Opens an event window (a wake for fetch or push) on an app that may not run code.
    private mutating func openWindow() {
        if app.state == .suspended { apply { $0.wake(now: $1) } }
        let id = nextWindow
        nextWindow += 1
        let length = Duration.seconds(Int.random(in: 1...40, using: &random))
        // Only background time is measured: not an app in front, nor one being ended.
        let inBackground =
            (app.state == .background || app.state == .inactive && !app.wantsForeground) && app.terminating == nil
        #expect(app.openWindow(id, kind: .fetch, length: length, now: now) == inBackground)
        if inBackground { longestWindow = max(longestWindow, length) }
        fireDueTimers()
    }

    /// Completes or cuts an open window, or completes one that is not open.
    private mutating func closeWindow() {
        let open = app.windows.keys.sorted()
        let previous = app.state
        guard let id = open.randomElement(using: &random), Int.random(in: 0..<5, using: &random) != 0 else {
            #expect(app.completeWindow(nextWindow + 1, now: now) == nil, "a window not open cannot complete")
            return
        }
        if Bool.random(using: &random) {
            let actions = app.completeWindow(id, now: now)
            #expect(actions != nil)
            #expect(app.windows[id] == nil)
            check(after: actions ?? [], previous: previous)
        } else {
            check(after: app.cutWindow(id, now: now), previous: previous)
        }
        fireDueTimers()
    }

    private mutating func holdAssertion() {
        // Asked of an app in any state: the life cycle must refuse one that runs no code.
        let assertion = [BackgroundAssertion.audio, .location][Int.random(in: 0..<2, using: &random)]
        apply { $0.setAssertion(assertion, held: true, now: $1) }
    }

    private mutating func releaseAssertion() {
        let assertion = [BackgroundAssertion.audio, .location][Int.random(in: 0..<2, using: &random)]
        apply { $0.setAssertion(assertion, held: false, now: $1) }
    }

    private mutating func apply(_ operation: (inout AppLifecycle, Duration) -> [AppLifecycle.Action]) {
        let previous = app.state
        let actions = operation(&app, now)
        check(after: actions, previous: previous)
        fireDueTimers()
    }

    /// Moves the clock forward, firing the app's timer at each deadline on the way.
    private mutating func advance(by interval: Duration) {
        let target = now + interval
        var fired = 0
        while let deadline = app.nextDeadline, deadline <= target {
            fired += 1
            guard fired <= 4 else {
                Issue.record("the timer keeps firing at \(deadline)")
                break
            }
            now = max(now, deadline)
            let previous = app.state
            let actions = app.evaluate(now: now)
            guard !actions.isEmpty else {
                Issue.record("a deadline at \(deadline) that does nothing is a spurious wake-up")
                break
            }
            check(after: actions, previous: previous)
        }
        now = target
        checkQuietUntilDeadline()
    }

    /// Fires timers that are already due, as the daemon does after rescheduling.
    private mutating func fireDueTimers() {
        var fired = 0
        while let deadline = app.nextDeadline, deadline <= now {
            fired += 1
            guard fired <= 4 else {
                Issue.record("the deadline \(deadline) stays due at \(now)")
                return
            }
            let previous = app.state
            let actions = app.evaluate(now: now)
            guard !actions.isEmpty else {
                Issue.record("a deadline at \(deadline) that does nothing is a spurious wake-up")
                return
            }
            check(after: actions, previous: previous)
        }
        checkQuietUntilDeadline()
    }

    // MARK: Invariants

    /// What must hold after any step.
    private mutating func check(after actions: [AppLifecycle.Action], previous: ApplicationState) {
        if app.state == .suspended {
            #expect(app.tasks.isEmpty, "a suspended app has no open tasks")
            #expect(app.assertions.isEmpty, "a suspended app holds no assertion")
        }
        let backgroundLaunch = app.state == .inactive && !app.wantsForeground
        if app.state != .background && !backgroundLaunch || app.terminating != nil {
            #expect(app.windows.isEmpty, "only time in the background is measured by a window")
        }
        if app.state != .background && app.windows.isEmpty {
            // Or a background launch waiting to check in, whose deadline is the check-in's.
            #expect(
                app.nextDeadline == nil || app.nextDeadline == app.checkInDue,
                "only a background app has a deadline, not one \(app.state)")
        }
        if app.terminating != nil {
            #expect(app.nextDeadline == nil)
        }
        switch app.state {
        case .notRunning, .inactive, .active:
            #expect(app.backgroundTimeRemaining(now: now) == nil)
        case .background, .suspended:
            let remaining = app.backgroundTimeRemaining(now: now)
            if app.assertions.isEmpty {
                #expect(remaining.map { $0 >= .zero && $0 <= max(budget, longestWindow) } ?? false)
            } else {
                #expect(remaining == nil, "an assertion means unlimited background time")
            }
        }
        if previous != .background && app.state == .background {
            expiredThisStay = []
        }
        checkActions(actions, previous: previous)
    }

    private mutating func checkActions(_ actions: [AppLifecycle.Action], previous: ApplicationState) {
        for (index, action) in actions.enumerated() {
            if case .expireTasks = action {
                seenActions.insert(.expireTasks([]))
            } else if case .expireWindows = action {
                seenActions.insert(.expireWindows([]))
            } else if case .windowsClosed = action {
                seenActions.insert(.windowsClosed([]))
            } else {
                seenActions.insert(action)
            }
            switch action {
            case .suspend:
                #expect(actions.last == .suspend, "nothing follows a suspension")
                #expect(app.state == .suspended)
            case .resume:
                #expect(index == 0, "a thaw comes first")
                #expect(previous == .suspended, "only a suspended app is resumed")
            case .terminate(let reason):
                #expect(index == actions.count - 1, "nothing follows a termination")
                #expect(app.terminating == reason)
            case .expireTasks(let ids):
                // Each task hears its expiration once per stay; one begun later gets its own.
                #expect(expiredThisStay.isDisjoint(with: ids), "a task's expiration handler runs once")
                expiredThisStay.formUnion(ids)
                #expect(ids == ids.sorted())
                #expect(!ids.isEmpty)
                #expect(Set(ids).isSubset(of: Set(app.tasks.keys)))
            case .expireWindows(let ids):
                #expect(!ids.isEmpty && ids == ids.sorted())
                // With no warning, a window hears its expiration as it closes.
                let closedNow: [EventWindowID] = actions.flatMap { action -> [EventWindowID] in
                    if case .windowsClosed(let closed) = action { closed } else { [] }
                }
                #expect(
                    Set(ids).isSubset(of: Set(app.windows.keys).union(closedNow)),
                    "only an open window hears its expiration")
            case .windowsClosed(let ids):
                #expect(!ids.isEmpty && ids == ids.sorted())
                #expect(Set(ids).isDisjoint(with: Set(app.windows.keys)), "a closed window is gone")
            case .deliver(let event):
                #expect(previous != .suspended || actions.first == .resume, "a frozen app hears nothing")
                if event == .didBecomeActive { #expect(app.state == .active) }
                if event == .didEnterBackground { #expect(app.state != .active) }
            }
        }
    }

    /// Until the next deadline, the clock alone changes nothing; with no deadline, it never does.
    private func checkQuietUntilDeadline() {
        var probe = app
        guard let deadline = app.nextDeadline else {
            #expect(probe.evaluate(now: now + .seconds(100_000)) == [])
            return
        }
        #expect(deadline > now, "an overdue deadline at \(deadline), now \(now)")
        var justBefore = app
        #expect(justBefore.evaluate(now: deadline - .nanoseconds(1)) == [])
        #expect(probe.evaluate(now: now) == [])
    }
}

@Suite("Life cycle: properties of random walks", .timeLimit(.minutes(5)))
struct LifecyclePropertyTests {
    static let seeds: [UInt64] = [1, 2, 3, 42, 1_234, 0xDEAD_BEEF, 0x5EED_5EED_5EED, 9_876_543_210]

    @Test("Invariants hold along a seeded random walk", arguments: LifecycleScenario.all, seeds)
    func randomWalk(scenario: LifecycleScenario, seed: UInt64) {
        var walk = LifecycleWalk(scenario: scenario, seed: seed)
        for _ in 0..<400 {
            walk.step()
        }
    }

    @Test("Walks reach every state", arguments: LifecycleScenario.all)
    func walksReachEveryState(scenario: LifecycleScenario) {
        var seen: Set<ApplicationState> = []
        var terminations: Set<TerminationReason> = []
        var walk = LifecycleWalk(scenario: scenario, seed: 7)
        for _ in 0..<2_000 {
            walk.step()
            seen.insert(walk.app.state)
            if let reason = walk.app.terminating { terminations.insert(reason) }
        }

        let reachable: Set<ApplicationState> =
            scenario.manifest.exitsOnSuspend
            ? [.notRunning, .inactive, .active, .background] : Set(ApplicationState.allCases)
        #expect(seen.isSuperset(of: reachable))
        #expect(terminations.contains(.forceQuit))
        #expect(terminations.contains(.memoryPressure))

        var expected: Set<AppLifecycle.Action> = [
            .terminate(.backgroundTaskOverran), .terminate(.forceQuit), .terminate(.memoryPressure),
            .windowsClosed([]),
        ]
        if scenario.policy.expirationWarning(for: scenario.manifest) > .zero {
            expected.formUnion([.expireTasks([]), .expireWindows([])])
        }
        expected.formUnion(LifecycleEvent.allCases.map { .deliver($0) })
        if scenario.manifest.exitsOnSuspend {
            expected.insert(.terminate(.exitsOnSuspend))
        } else {
            expected.formUnion([.suspend, .resume])
        }
        #expect(walk.seenActions.isSuperset(of: expected), "never seen: \(expected.subtracting(walk.seenActions))")
    }

    @Test func theSameSeedGivesTheSameWalk() {
        var first = LifecycleWalk(scenario: LifecycleScenario.all[0], seed: 99)
        var second = LifecycleWalk(scenario: LifecycleScenario.all[0], seed: 99)
        for _ in 0..<200 {
            first.step()
            second.step()
            #expect(first.now == second.now)
            #expect(first.app.state == second.app.state)
            #expect(first.app.tasks == second.app.tasks)
        }
    }
}
