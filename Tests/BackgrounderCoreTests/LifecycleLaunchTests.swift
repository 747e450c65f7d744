import BackgrounderCore
import Testing

@Suite("Life cycle: launch, check-in and exit", .timeLimit(.minutes(5)))
struct LifecycleLaunchTests {
    typealias Fixture = LifecycleFixture

    @Test func aNewLifeCycleIsNotRunning() {
        let app = Fixture.notRunning()

        #expect(app.state == .notRunning)
        #expect(app.tasks.isEmpty)
        #expect(app.assertions.isEmpty)
        #expect(app.terminating == nil)
        #expect(app.nextDeadline == nil)
        #expect(app.backgroundTimeRemaining(now: .seconds(100)) == nil)
    }

    @Test func itKeepsTheManifestItWasGiven() {
        let app = Fixture.notRunning(manifest: Fixture.exitsOnSuspendManifest)

        #expect(app.manifest == Fixture.exitsOnSuspendManifest)
        #expect(app.policy.name == "standard")
    }

    // MARK: Foreground launch

    @Test func launchingForTheForegroundLeavesTheAppInactive() {
        var app = Fixture.notRunning()

        app.launched(foreground: true, now: .seconds(3))

        #expect(app.state == .inactive)
        #expect(app.nextDeadline == nil)
        #expect(app.backgroundTimeRemaining(now: .seconds(3)) == nil)
    }

    @Test func checkingInAfterAForegroundLaunchMakesTheAppActive() {
        var app = Fixture.notRunning()
        app.launched(foreground: true, now: .seconds(3))

        let actions = app.checkedIn(now: .seconds(4))

        #expect(actions == [.deliver(.didBecomeActive)])
        #expect(app.state == .active)
        #expect(app.nextDeadline == nil)
        #expect(app.backgroundTimeRemaining(now: .seconds(4)) == nil)
    }

    @Test func anActiveAppIsNeverSuspendedByTheClock() {
        var app = Fixture.active(at: .seconds(3))

        #expect(app.evaluate(now: .seconds(3_600)) == [])
        #expect(app.state == .active)
    }

    @Test func checkingInTwiceDoesNothingTheSecondTime() {
        var app = Fixture.active()

        #expect(app.checkedIn(now: .seconds(1)) == [])
        #expect(app.state == .active)
    }

    @Test func checkingInWithoutALaunchDoesNothing() {
        var app = Fixture.notRunning()

        #expect(app.checkedIn(now: .seconds(1)) == [])
        #expect(app.state == .notRunning)
    }

    // MARK: Background launch

    @Test func checkingInAfterABackgroundLaunchPutsTheAppInTheBackground() {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .seconds(10))
        #expect(app.state == .inactive)

        let actions = app.checkedIn(now: .seconds(11))

        #expect(actions == [.deliver(.didEnterBackground)])
        #expect(app.state == .background)
        #expect(app.backgroundTimeRemaining(now: .seconds(11)) == .seconds(29))
    }

    @Test func aBackgroundLaunchIsSuspendedAfterTheGraceCountedFromTheLaunch() {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .seconds(10))
        _ = app.checkedIn(now: .seconds(11))

        #expect(app.nextDeadline == .seconds(15))
        #expect(app.evaluate(now: .seconds(14)) == [])
        #expect(app.state == .background)
        #expect(app.evaluate(now: .seconds(15)) == [.suspend])
        #expect(app.state == .suspended)
        #expect(app.nextDeadline == nil)
    }

    @Test(
        "A background launch checking in after its grace is suspended at once",
        arguments: [Duration.seconds(15), .seconds(16), .seconds(60)]
    )
    func lateBackgroundCheckIn(checkIn: Duration) {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .seconds(10))

        let actions = app.checkedIn(now: checkIn)

        #expect(actions == [.deliver(.didEnterBackground), .suspend])
        #expect(app.state == .suspended)
    }

    @Test func aBackgroundLaunchOfAnExitsOnSuspendAppEndsAfterTheGrace() {
        var app = Fixture.notRunning(manifest: Fixture.exitsOnSuspendManifest)
        app.launched(foreground: false, now: .zero)
        #expect(app.checkedIn(now: .seconds(1)) == [.deliver(.didEnterBackground)])

        let actions = app.evaluate(now: .seconds(5))

        #expect(actions == [.deliver(.willTerminate), .terminate(.exitsOnSuspend)])
        #expect(app.terminating == .exitsOnSuspend)
        #expect(app.nextDeadline == nil)
    }

    @Test func aTaskBegunBeforeABackgroundCheckInKeepsTheAppRunning() throws {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .zero)
        let id = try app.beginGrantedTask(named: "fetch", now: .seconds(1))

        #expect(app.checkedIn(now: .seconds(2)) == [.deliver(.didEnterBackground)])
        #expect(app.tasks == [id: "fetch"])
        #expect(app.nextDeadline == .seconds(25))
        #expect(app.evaluate(now: .seconds(5)) == [])
        #expect(app.state == .background)
    }

    @Test func openingABackgroundLaunchBeforeItChecksInMakesItActiveOnCheckIn() {
        var app = Fixture.notRunning()
        app.launched(foreground: false, now: .zero)

        #expect(app.moveToForeground(now: .seconds(1)) == [])
        #expect(app.state == .inactive)
        #expect(app.checkedIn(now: .seconds(2)) == [.deliver(.didBecomeActive)])
        #expect(app.state == .active)
        #expect(app.nextDeadline == nil)
        #expect(app.backgroundTimeRemaining(now: .seconds(2)) == nil)
    }

    @Test func relaunchingStartsAfresh() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])
        _ = app.setAssertion(.audio, held: true, now: .seconds(1))

        app.launched(foreground: true, now: .seconds(2))

        #expect(app.state == .inactive)
        #expect(app.tasks.isEmpty)
        #expect(app.assertions.isEmpty)
        #expect(app.terminating == nil)
        #expect(app.nextDeadline == nil)
    }

    // MARK: Exit

    @Test("exited() forgets everything", arguments: ApplicationState.allCases)
    func exitedResets(from state: ApplicationState) {
        var app = Fixture.app(in: state)
        _ = app.beginTask(named: "upload", now: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)

        app.exited()

        #expect(app.state == .notRunning)
        #expect(app.tasks.isEmpty)
        #expect(app.assertions.isEmpty)
        #expect(app.terminating == nil)
        #expect(app.nextDeadline == nil)
        #expect(app.backgroundTimeRemaining(now: .seconds(1)) == nil)
    }

    @Test func exitedClearsATermination() {
        var app = Fixture.active()
        _ = app.terminate(.forceQuit)
        #expect(app.terminating == .forceQuit)

        app.exited()

        #expect(app.terminating == nil)
        #expect(app.state == .notRunning)
    }

    @Test func anExitedAppDoesNothingUntilItIsLaunchedAgain() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])
        app.exited()

        #expect(app.beginTask(named: "late", now: .seconds(1)) == nil)
        #expect(app.endTask(1, now: .seconds(1)) == [])
        #expect(app.evaluate(now: .seconds(100)) == [])
        #expect(app.moveToBackground(now: .seconds(1)) == [])
        #expect(app.moveToForeground(now: .seconds(1)) == [])
        #expect(app.terminate(.forceQuit) == [])
        #expect(app.state == .notRunning)
    }

    @Test func anExitedAppCanBeLaunchedAgain() {
        var app = Fixture.suspended()
        app.exited()

        app.launched(foreground: true, now: .seconds(50))

        #expect(app.checkedIn(now: .seconds(51)) == [.deliver(.didBecomeActive)])
        #expect(app.state == .active)
    }
}
