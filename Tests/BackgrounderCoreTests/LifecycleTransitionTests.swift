import BackgrounderCore
import Testing

@Suite("Life cycle: going home and coming back", .timeLimit(.minutes(5)))
struct LifecycleTransitionTests {
    typealias Fixture = LifecycleFixture

    // MARK: Home

    @Test func goingHomeFromActiveResignsThenEntersTheBackground() {
        var app = Fixture.active(at: .zero)

        let actions = app.moveToBackground(now: .seconds(10))

        #expect(actions == [.deliver(.willResignActive), .deliver(.didEnterBackground)])
        #expect(app.state == .background)
    }

    @Test func withNoTasksTheNextDeadlineIsTheEndOfTheGrace() {
        var app = Fixture.active(at: .zero)
        _ = app.moveToBackground(now: .seconds(10))

        #expect(app.nextDeadline == .seconds(15))
    }

    @Test(
        "Evaluating before the grace ends does nothing",
        arguments: [
            Duration.seconds(10), .seconds(12), .milliseconds(14_999), .seconds(15) - .nanoseconds(1),
        ]
    )
    func evaluateBeforeGrace(now: Duration) {
        var app = Fixture.background(at: .seconds(10))

        #expect(app.evaluate(now: now) == [])
        #expect(app.state == .background)
        #expect(app.nextDeadline == .seconds(15))
    }

    @Test("At or after the end of the grace the app is suspended", arguments: [15, 16, 3_600])
    func suspendAtGrace(seconds: Int) {
        var app = Fixture.background(at: .seconds(10))

        #expect(app.evaluate(now: .seconds(seconds)) == [.suspend])
        #expect(app.state == .suspended)
        #expect(app.nextDeadline == nil)
        #expect(app.terminating == nil)
    }

    @Test func aSuspendedAppIsNotSuspendedAgain() {
        var app = Fixture.suspended(at: .zero)

        #expect(app.evaluate(now: .seconds(6)) == [])
        #expect(app.evaluate(now: .seconds(600)) == [])
        #expect(app.state == .suspended)
    }

    @Test func anExitsOnSuspendAppIsTerminatedWhereOthersAreSuspended() {
        var app = Fixture.active(at: .zero, manifest: Fixture.exitsOnSuspendManifest)

        let actions = app.moveToBackground(now: .seconds(10))

        #expect(actions == [.deliver(.willResignActive), .deliver(.willTerminate), .terminate(.exitsOnSuspend)])
        #expect(app.terminating == .exitsOnSuspend)
        #expect(app.state != .suspended)
        #expect(app.nextDeadline == nil)
        #expect(app.evaluate(now: .seconds(20)) == [])
    }

    @Test func goingHomeWhileLaunchingSkipsWillResignActive() {
        var app = Fixture.notRunning()
        app.launched(foreground: true, now: .zero)

        #expect(app.moveToBackground(now: .seconds(1)) == [.deliver(.didEnterBackground)])
        #expect(app.state == .background)
        #expect(app.nextDeadline == .seconds(6))
    }

    @Test(
        "Going home from a state that is not in the foreground does nothing",
        arguments: [ApplicationState.background, .suspended, .notRunning]
    )
    func homeOutsideTheForeground(state: ApplicationState) {
        var app = Fixture.app(in: state)
        let deadline = app.nextDeadline

        #expect(app.moveToBackground(now: .seconds(3)) == [])
        #expect(app.state == state)
        #expect(app.nextDeadline == deadline)
    }

    @Test func goingHomeTwiceDoesNotRestartTheGrace() {
        var app = Fixture.background(at: .zero)

        #expect(app.moveToBackground(now: .seconds(4)) == [])
        #expect(app.nextDeadline == .seconds(5))
        #expect(app.evaluate(now: .seconds(5)) == [.suspend])
    }

    // MARK: Open

    @Test func openingASuspendedAppResumesItFirst() {
        var app = Fixture.suspended(at: .zero)

        let actions = app.moveToForeground(now: .seconds(20))

        #expect(actions == [.resume, .deliver(.willEnterForeground), .deliver(.didBecomeActive)])
        #expect(app.state == .active)
        #expect(app.nextDeadline == nil)
        #expect(app.backgroundTimeRemaining(now: .seconds(20)) == nil)
    }

    @Test func openingABackgroundAppNeedsNoResume() {
        var app = Fixture.background(at: .zero)

        let actions = app.moveToForeground(now: .seconds(2))

        #expect(actions == [.deliver(.willEnterForeground), .deliver(.didBecomeActive)])
        #expect(app.state == .active)
        #expect(app.nextDeadline == nil)
        #expect(app.evaluate(now: .seconds(5)) == [])
        #expect(app.state == .active)
    }

    @Test func openingAnActiveAppDoesNothing() {
        var app = Fixture.active(at: .zero)

        #expect(app.moveToForeground(now: .seconds(2)) == [])
        #expect(app.state == .active)
    }

    @Test func openingAnAppThatIsNotRunningIsLeftToTheLauncher() {
        var app = Fixture.notRunning()

        #expect(app.moveToForeground(now: .seconds(2)) == [])
        #expect(app.state == .notRunning)
    }

    @Test func openingAnAppThatIsLaunchingWaitsForItsCheckIn() {
        var app = Fixture.app(in: .inactive)

        #expect(app.moveToForeground(now: .seconds(1)) == [])
        #expect(app.state == .inactive)
    }

    // MARK: Round trips

    @Test func eachTripToTheBackgroundGetsAFreshGrace() {
        var app = Fixture.background(at: .zero)
        _ = app.moveToForeground(now: .seconds(3))

        #expect(
            app.moveToBackground(now: .seconds(40)) == [.deliver(.willResignActive), .deliver(.didEnterBackground)]
        )
        #expect(app.nextDeadline == .seconds(45))
        #expect(app.evaluate(now: .seconds(44)) == [])
        #expect(app.evaluate(now: .seconds(45)) == [.suspend])
    }

    @Test func eachTripToTheBackgroundGetsAFreshBudgetAndWarning() {
        var app = Fixture.background(at: .zero, tasks: ["sync"])
        #expect(app.evaluate(now: .seconds(25)) == [.expireTasks([1])])
        #expect(
            app.moveToForeground(now: .seconds(27)) == [.deliver(.willEnterForeground), .deliver(.didBecomeActive)])

        _ = app.moveToBackground(now: .seconds(40))

        #expect(app.backgroundTimeRemaining(now: .seconds(40)) == .seconds(30))
        #expect(app.nextDeadline == .seconds(65))
        #expect(app.evaluate(now: .seconds(64)) == [])
        #expect(app.evaluate(now: .seconds(65)) == [.expireTasks([1])])
        #expect(app.nextDeadline == .seconds(70))
    }

    @Test func aSuspendedAppOpenedAndSentHomeAgainIsSuspendedAgain() {
        var app = Fixture.suspended(at: .zero)
        _ = app.moveToForeground(now: .seconds(100))
        _ = app.moveToBackground(now: .seconds(200))

        #expect(app.state == .background)
        #expect(app.evaluate(now: .seconds(205)) == [.suspend])
        #expect(app.state == .suspended)
    }
}
