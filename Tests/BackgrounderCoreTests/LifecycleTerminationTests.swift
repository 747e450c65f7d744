import BackgrounderCore
import Testing

@Suite("Life cycle: termination", .timeLimit(.minutes(5)))
struct LifecycleTerminationTests {
    typealias Fixture = LifecycleFixture

    /// Reasons whose app hears `willTerminate` when it can run code.
    static let announcedReasons: [TerminationReason] = [.forceQuit, .daemonShutdown, .exitsOnSuspend]

    @Test func forceQuittingAnActiveAppWarnsItFirst() {
        var app = Fixture.active()

        let actions = app.terminate(.forceQuit)

        #expect(actions == [.deliver(.willTerminate), .terminate(.forceQuit)])
        #expect(app.terminating == .forceQuit)
        #expect(app.nextDeadline == nil)
    }

    @Test(
        "An app that can run code hears willTerminate",
        arguments: [ApplicationState.inactive, .active, .background], announcedReasons
    )
    func announcedTermination(state: ApplicationState, reason: TerminationReason) {
        var app = Fixture.app(in: state)

        #expect(app.terminate(reason) == [.deliver(.willTerminate), .terminate(reason)])
        #expect(app.terminating == reason)
    }

    @Test(
        "Memory pressure ends an app without notice",
        arguments: [ApplicationState.inactive, .active, .background]
    )
    func memoryPressure(state: ApplicationState) {
        var app = Fixture.app(in: state)

        #expect(app.terminate(.memoryPressure) == [.terminate(.memoryPressure)])
        #expect(app.terminating == .memoryPressure)
    }

    @Test("A suspended app is thawed, not told, before it ends", arguments: TerminationReason.allReasons)
    func suspendedTermination(reason: TerminationReason) {
        var app = Fixture.suspended()

        #expect(app.terminate(reason) == [.resume, .terminate(reason)])
        #expect(app.terminating == reason)
    }

    @Test("An app that is not running cannot be terminated", arguments: TerminationReason.allReasons)
    func notRunningTermination(reason: TerminationReason) {
        var app = Fixture.notRunning()

        #expect(app.terminate(reason) == [])
        #expect(app.terminating == nil)
    }

    @Test(
        "A second termination does nothing",
        arguments: TerminationReason.allReasons, TerminationReason.allReasons
    )
    func secondTermination(first: TerminationReason, second: TerminationReason) {
        var app = Fixture.active()
        _ = app.terminate(first)

        #expect(app.terminate(second) == [])
        #expect(app.terminating == first)
    }

    @Test func aTerminatingAppIsNotSuspendedOrTerminatedByTheClock() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])
        _ = app.terminate(.daemonShutdown)

        #expect(app.nextDeadline == nil)
        #expect(app.evaluate(now: .seconds(5)) == [])
        #expect(app.evaluate(now: .seconds(25)) == [])
        #expect(app.evaluate(now: .seconds(30)) == [])
        #expect(app.endTask(1, now: .seconds(31)) == [])
        #expect(app.evaluate(now: .seconds(100)) == [])
        #expect(app.terminating == .daemonShutdown)
    }

    @Test func aTerminatingAppBeginsNoTask() {
        var app = Fixture.active()
        _ = app.terminate(.forceQuit)

        #expect(app.beginTask(named: "upload", now: .seconds(1)) == nil)
        #expect(app.tasks.isEmpty)
    }

    @Test func aTerminatingAppIsNotSentHome() {
        var app = Fixture.background(at: .zero)
        _ = app.terminate(.forceQuit)

        #expect(app.moveToBackground(now: .seconds(1)) == [])
    }

    @Test func anExitsOnSuspendTerminationIsNotRepeatedByForceQuit() {
        var app = Fixture.background(at: .zero, manifest: Fixture.exitsOnSuspendManifest)
        _ = app.evaluate(now: .seconds(5))

        #expect(app.terminate(.forceQuit) == [])
        #expect(app.terminating == .exitsOnSuspend)
    }

    @Test func theProcessExitingEndsTheTermination() {
        var app = Fixture.suspended()
        _ = app.terminate(.memoryPressure)

        app.exited()

        #expect(app.state == .notRunning)
        #expect(app.terminating == nil)
    }
}

extension TerminationReason {
    /// Every reason, for parameterized tests.
    static let allReasons: [TerminationReason] = [
        .backgroundTaskOverran, .exitsOnSuspend, .forceQuit, .memoryPressure, .daemonShutdown,
    ]
}
