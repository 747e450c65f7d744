import BackgrounderCore
import Testing

@Suite("Background policy", .timeLimit(.minutes(5)))
struct PolicyTests {
    typealias Fixture = LifecycleFixture

    static let manifest = LifecycleFixture.manifest

    // MARK: The standard policy's numbers

    @Test func theStandardPolicyCarriesIOSNumbers() {
        let policy = StandardPolicy()

        #expect(policy.name == "standard")
        #expect(policy.suspendGrace(for: Self.manifest) == .seconds(5))
        #expect(policy.backgroundTaskBudget(for: Self.manifest) == .seconds(30))
        #expect(policy.expirationWarning(for: Self.manifest) == .seconds(5))
        #expect(policy.crashLoopLimit(for: Self.manifest) == 5)
        #expect(policy.crashLoopWindow(for: Self.manifest) == .seconds(10))
    }

    @Test func everyNumberIsConfigurable() {
        let policy = StandardPolicy(
            suspendGrace: .seconds(2),
            taskBudget: .seconds(600),
            expirationWarning: .seconds(20),
            crashLoopLimit: 3,
            crashLoopWindow: .seconds(60)
        )

        #expect(policy.suspendGrace(for: Self.manifest) == .seconds(2))
        #expect(policy.backgroundTaskBudget(for: Self.manifest) == .seconds(600))
        #expect(policy.expirationWarning(for: Self.manifest) == .seconds(20))
        #expect(policy.crashLoopLimit(for: Self.manifest) == 3)
        #expect(policy.crashLoopWindow(for: Self.manifest) == .seconds(60))
    }

    @Test func theStandardPolicyTreatsEveryAppAlike() {
        let policy = StandardPolicy(suspendGrace: .seconds(7))
        let audioApp = AppManifest(
            bundleIdentifier: "org.example.player",
            name: "Player",
            executable: "Player",
            backgroundModes: [.audio]
        )

        #expect(policy.suspendGrace(for: audioApp) == policy.suspendGrace(for: Self.manifest))
        #expect(policy.suspendGrace(for: Fixture.exitsOnSuspendManifest) == .seconds(7))
    }

    @Test(
        "A warning longer than the budget is clamped to the budget",
        arguments: [(5, 30, 5), (30, 30, 30), (31, 30, 30), (60, 10, 10), (0, 30, 0)]
    )
    func warningClamp(warning: Int, budget: Int, expected: Int) {
        let policy = StandardPolicy(taskBudget: .seconds(budget), expirationWarning: .seconds(warning))

        #expect(policy.expirationWarning(for: Self.manifest) == .seconds(expected))
    }

    // MARK: The life cycle follows the policy

    @Test func theClassicBudgetGivesThreeMinutes() {
        let policy = StandardPolicy(taskBudget: .seconds(180))
        var app = Fixture.background(at: .seconds(1_000), tasks: ["upload"], policy: policy)

        #expect(app.backgroundTimeRemaining(now: .seconds(1_000)) == .seconds(180))
        #expect(app.nextDeadline == .seconds(1_175))
        #expect(app.evaluate(now: .seconds(1_030)) == [])
        #expect(app.evaluate(now: .seconds(1_174)) == [])
        #expect(app.evaluate(now: .seconds(1_175)) == [.expireTasks([1])])
        #expect(app.nextDeadline == .seconds(1_180))
        #expect(app.evaluate(now: .seconds(1_179)) == [])
        #expect(app.evaluate(now: .seconds(1_180)) == [.terminate(.backgroundTaskOverran)])
    }

    @Test func aWarningLongerThanTheBudgetExpiresTasksOnEnteringTheBackground() {
        let policy = StandardPolicy(taskBudget: .seconds(10), expirationWarning: .seconds(60))
        var app = Fixture.active(at: .zero, policy: policy)
        _ = app.beginTask(named: "upload", now: .zero)

        let actions = app.moveToBackground(now: .seconds(20))

        #expect(
            actions == [.deliver(.willResignActive), .deliver(.didEnterBackground), .expireTasks([1])]
        )
        #expect(app.nextDeadline == .seconds(30))
        #expect(app.evaluate(now: .seconds(30)) == [.terminate(.backgroundTaskOverran)])
    }

    @Test("The grace is the policy's", arguments: [1, 5, 10, 120])
    func graceFromPolicy(grace: Int) {
        let policy = StandardPolicy(suspendGrace: .seconds(grace))
        var app = Fixture.background(at: .seconds(50), policy: policy)

        #expect(app.nextDeadline == .seconds(50 + grace))
        #expect(app.evaluate(now: .seconds(50 + grace) - .milliseconds(1)) == [])
        #expect(app.evaluate(now: .seconds(50 + grace)) == [.suspend])
    }

    @Test("The budget and warning are the policy's", arguments: [(30, 5), (180, 10), (60, 1), (10, 10)])
    func budgetFromPolicy(budget: Int, warning: Int) {
        let policy = StandardPolicy(taskBudget: .seconds(budget), expirationWarning: .seconds(warning))
        var app = Fixture.background(at: .seconds(100), tasks: ["upload"], policy: policy)
        if warning < budget {
            #expect(app.nextDeadline == .seconds(100 + budget - warning))
            #expect(app.evaluate(now: .seconds(100 + budget - warning)) == [.expireTasks([1])])
        }

        #expect(app.nextDeadline == .seconds(100 + budget))
        #expect(app.evaluate(now: .seconds(100 + budget)) == [.terminate(.backgroundTaskOverran)])
    }

    @Test func aZeroGraceSuspendsOnEnteringTheBackground() {
        let policy = StandardPolicy(suspendGrace: .zero)
        var app = Fixture.active(at: .zero, policy: policy)

        let actions = app.moveToBackground(now: .seconds(3))

        #expect(actions == [.deliver(.willResignActive), .deliver(.didEnterBackground), .suspend])
        #expect(app.state == .suspended)
    }

    @Test func anExitsOnSuspendAppGoesFromHomeStraightToWillTerminateWhateverTheGrace() {
        for grace in [Duration.zero, .seconds(5)] {
            let policy = StandardPolicy(suspendGrace: grace)
            var app = Fixture.active(at: .zero, manifest: Fixture.exitsOnSuspendManifest, policy: policy)

            let actions = app.moveToBackground(now: .seconds(3))

            // No didEnterBackground: there is no background phase to begin tasks in.
            #expect(actions == [.deliver(.willResignActive), .deliver(.willTerminate), .terminate(.exitsOnSuspend)])
            #expect(app.beginTask(named: "late", now: .seconds(3)) == nil)
        }
    }

    // MARK: A plug-in policy

    @Test func theLifeCycleAsksThePolicyAboutItsOwnApp() {
        let policy = PolicyByMode()
        let player = AppManifest(
            bundleIdentifier: "org.example.player",
            name: "Player",
            executable: "Player",
            backgroundModes: [.audio]
        )
        var plain = Fixture.background(at: .zero, tasks: ["upload"], policy: policy)
        var audio = Fixture.background(at: .zero, tasks: ["upload"], manifest: player, policy: policy)

        #expect(plain.policy.name == "by mode")
        #expect(plain.nextDeadline == .seconds(8))
        #expect(audio.nextDeadline == .seconds(50))
        #expect(plain.evaluate(now: .seconds(8)) == [.expireTasks([1])])
        #expect(audio.evaluate(now: .seconds(8)) == [])
        #expect(plain.evaluate(now: .seconds(10)) == [.terminate(.backgroundTaskOverran)])
        #expect(audio.evaluate(now: .seconds(50)) == [.expireTasks([1])])
        #expect(audio.backgroundTimeRemaining(now: .seconds(50)) == .seconds(10))
    }

    @Test func aPlugInPolicyGraceIsPerApp() {
        let policy = PolicyByMode()
        let player = AppManifest(
            bundleIdentifier: "org.example.player",
            name: "Player",
            executable: "Player",
            backgroundModes: [.audio]
        )
        var plain = Fixture.background(at: .zero, policy: policy)
        var audio = Fixture.background(at: .zero, manifest: player, policy: policy)

        #expect(plain.evaluate(now: .seconds(1)) == [.suspend])
        #expect(audio.evaluate(now: .seconds(1)) == [])
        #expect(audio.nextDeadline == .seconds(20))
        #expect(audio.evaluate(now: .seconds(20)) == [.suspend])
    }
}

/// A plug-in policy that is stingy with ordinary apps and generous with audio apps.
private struct PolicyByMode: BackgroundPolicy {
    var name: String { "by mode" }

    private func generous(_ app: AppManifest) -> Bool { app.backgroundModes.contains(.audio) }

    func suspendGrace(for app: AppManifest) -> Duration { generous(app) ? .seconds(20) : .seconds(1) }
    func backgroundTaskBudget(for app: AppManifest) -> Duration { generous(app) ? .seconds(60) : .seconds(10) }
    func expirationWarning(for app: AppManifest) -> Duration { generous(app) ? .seconds(10) : .seconds(2) }
    func crashLoopLimit(for app: AppManifest) -> Int { 3 }
    func crashLoopWindow(for app: AppManifest) -> Duration { .seconds(30) }
    func maximumMonitoredRegions(for app: AppManifest) -> Int { 20 }
}
