import BackgrounderCore
import Testing

@Suite("Life cycle: finite-length background tasks", .timeLimit(.minutes(5)))
struct LifecycleTaskTests {
    typealias Fixture = LifecycleFixture

    // MARK: Beginning and ending

    @Test func tasksGetDistinctIdentifiersAndKeepTheirNames() throws {
        var app = Fixture.active()

        let first = try app.beginGrantedTask(named: "upload", now: .zero)
        let second = try app.beginGrantedTask(named: "upload", now: .zero)
        let third = try app.beginGrantedTask(named: "index", now: .zero)

        #expect(Set([first, second, third]).count == 3)
        #expect(app.tasks == [first: "upload", second: "upload", third: "index"])
    }

    @Test("Tasks may begin while the app runs", arguments: [ApplicationState.inactive, .active, .background])
    func beginWhileRunning(state: ApplicationState) throws {
        var app = Fixture.app(in: state)

        let id = try app.beginGrantedTask(named: "upload", now: .seconds(1))

        #expect(app.tasks == [id: "upload"])
    }

    @Test("No task begins in an app that runs no code", arguments: [ApplicationState.suspended, .notRunning])
    func beginWhileNotRunningCode(state: ApplicationState) {
        var app = Fixture.app(in: state)

        #expect(app.beginTask(named: "upload", now: .seconds(10)) == nil)
        #expect(app.tasks.isEmpty)
    }

    @Test func endingAnUnknownTaskDoesNothing() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])

        #expect(app.endTask(99, now: .seconds(1)) == [])
        #expect(app.tasks == [1: "upload"])
        #expect(app.nextDeadline == .seconds(25))
    }

    @Test func endingATaskTwiceDoesNothingTheSecondTime() throws {
        var app = Fixture.active()
        let id = try app.beginGrantedTask(named: "upload", now: .zero)

        #expect(app.endTask(id, now: .seconds(1)) == [])
        #expect(app.endTask(id, now: .seconds(2)) == [])
        #expect(app.tasks.isEmpty)
    }

    @Test func endingATaskInTheForegroundChangesNothingElse() throws {
        var app = Fixture.active()
        let id = try app.beginGrantedTask(named: "upload", now: .zero)

        #expect(app.endTask(id, now: .seconds(1)) == [])
        #expect(app.state == .active)
        #expect(app.nextDeadline == nil)
    }

    // MARK: Running past the grace

    @Test func tasksBegunInTheForegroundKeepTheAppRunningPastTheGrace() throws {
        var app = Fixture.active(at: .zero)
        let id = try app.beginGrantedTask(named: "upload", now: .seconds(1))

        let actions = app.moveToBackground(now: .seconds(10))

        #expect(actions == [.deliver(.willResignActive), .deliver(.didEnterBackground)])
        #expect(app.tasks == [id: "upload"])
        #expect(app.nextDeadline == .seconds(35))
        for second in [15, 20, 34] {
            #expect(app.evaluate(now: .seconds(second)) == [])
        }
        #expect(app.state == .background)
    }

    @Test func aTaskBegunInTheBackgroundKeepsTheAppRunningPastTheGrace() throws {
        var app = Fixture.background(at: .zero)
        _ = try app.beginGrantedTask(named: "save", now: .seconds(2))

        #expect(app.nextDeadline == .seconds(25))
        #expect(app.evaluate(now: .seconds(5)) == [])
        #expect(app.state == .background)
    }

    // MARK: Expiration

    @Test func expirationHandlersRunOnceAtTheWarningWithSortedIdentifiers() throws {
        var app = Fixture.active(at: .zero)
        var ids: [BackgroundTaskID] = []
        for name in ["a", "b", "c", "d", "e", "f"] {
            ids.append(try app.beginGrantedTask(named: name, now: .zero))
        }
        _ = app.endTask(ids[2], now: .zero)
        _ = app.moveToBackground(now: .seconds(10))

        #expect(app.nextDeadline == .seconds(35))
        #expect(app.evaluate(now: .seconds(35) - .nanoseconds(1)) == [])

        let open = ids.filter { $0 != ids[2] }.sorted()
        #expect(app.evaluate(now: .seconds(35)) == [.expireTasks(open)])
        #expect(app.nextDeadline == .seconds(40))
        #expect(app.evaluate(now: .seconds(35)) == [])
        #expect(app.evaluate(now: .seconds(39)) == [])
        #expect(app.state == .background)
        #expect(app.terminating == nil)
    }

    @Test func aLateTimerStillExpiresTasksBeforeTheBudget() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])

        #expect(app.evaluate(now: .seconds(28)) == [.expireTasks([1])])
        #expect(app.nextDeadline == .seconds(30))
    }

    @Test func endingAllTasksAfterExpirationSuspendsAfterTheGraceFromTheLastEnd() {
        var app = Fixture.background(at: .zero, tasks: ["upload", "index"])
        #expect(app.evaluate(now: .seconds(25)) == [.expireTasks([1, 2])])

        #expect(app.endTask(2, now: .seconds(26)) == [])
        #expect(app.nextDeadline == .seconds(30))
        #expect(app.endTask(1, now: .seconds(27)) == [])

        #expect(app.tasks.isEmpty)
        #expect(app.nextDeadline == .seconds(32))
        #expect(app.evaluate(now: .seconds(30)) == [])
        #expect(app.evaluate(now: .seconds(31)) == [])
        #expect(app.state == .background)
        #expect(app.evaluate(now: .seconds(32)) == [.suspend])
        #expect(app.state == .suspended)
        #expect(app.terminating == nil)
    }

    @Test func endingTheLastTaskEarlyCountsTheGraceFromItsEnd() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])

        #expect(app.endTask(1, now: .seconds(3)) == [])

        #expect(app.nextDeadline == .seconds(8))
        #expect(app.evaluate(now: .seconds(5)) == [])
        #expect(app.evaluate(now: .seconds(8)) == [.suspend])
    }

    @Test func endingTheLastTaskAfterTheGraceWouldHaveEndedDoesNotSuspendAtOnce() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])

        #expect(app.endTask(1, now: .seconds(12)) == [])

        #expect(app.state == .background)
        #expect(app.nextDeadline == .seconds(17))
    }

    @Test func endingTheLastTaskOfAnExitsOnSuspendAppEndsItAfterTheGrace() {
        // Launched into the background for an event: the one way such an app runs there.
        var app = AppLifecycle(manifest: Fixture.exitsOnSuspendManifest, policy: Fixture.policy)
        app.launched(foreground: false, now: .zero)
        _ = app.checkedIn(now: .zero)
        #expect(app.beginTask(named: "upload", now: .zero) == 1)
        #expect(app.evaluate(now: .seconds(5)) == [])

        _ = app.endTask(1, now: .seconds(10))

        #expect(app.evaluate(now: .seconds(15)) == [.deliver(.willTerminate), .terminate(.exitsOnSuspend)])
    }

    // MARK: Overrunning

    @Test func aTaskStillOpenAtTheBudgetGetsTheAppTerminated() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])
        _ = app.evaluate(now: .seconds(25))

        let actions = app.evaluate(now: .seconds(30))

        #expect(actions == [.terminate(.backgroundTaskOverran)])
        #expect(app.terminating == .backgroundTaskOverran)
        #expect(app.state != .suspended)
        #expect(app.nextDeadline == nil)
    }

    @Test func nothingMoreHappensAfterAnOverrunTermination() {
        var app = Fixture.background(at: .zero, tasks: ["upload", "index"])
        _ = app.evaluate(now: .seconds(25))
        _ = app.evaluate(now: .seconds(30))

        #expect(app.evaluate(now: .seconds(30)) == [])
        #expect(app.evaluate(now: .seconds(300)) == [])
        #expect(app.endTask(1, now: .seconds(31)) == [])
        #expect(app.endTask(2, now: .seconds(31)) == [])
        #expect(app.evaluate(now: .seconds(400)) == [])
        #expect(app.beginTask(named: "again", now: .seconds(32)) == nil)
        #expect(app.moveToBackground(now: .seconds(33)) == [])
        #expect(app.setAssertion(.audio, held: false, now: .seconds(33)) == [])
        #expect(app.terminate(.forceQuit) == [])
        #expect(app.terminating == .backgroundTaskOverran)
        #expect(app.nextDeadline == nil)
    }

    @Test func aTimerThatMissedTheWarningTerminatesWithoutExpiring() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])

        #expect(app.evaluate(now: .seconds(31)) == [.terminate(.backgroundTaskOverran)])
    }

    // MARK: Time remaining

    @Test(
        "No background time is counted in the foreground",
        arguments: [ApplicationState.notRunning, .inactive, .active]
    )
    func noTimeRemainingInTheForeground(state: ApplicationState) {
        let app = Fixture.app(in: state)

        #expect(app.backgroundTimeRemaining(now: .seconds(1)) == nil)
        #expect(app.backgroundTimeRemaining(now: .seconds(1_000)) == nil)
    }

    @Test(
        "In the background the time remaining is the budget less the time spent there",
        arguments: [(0, 30), (1, 29), (12, 18), (25, 5), (29, 1), (30, 0), (31, 0), (1_000, 0)]
    )
    func timeRemainingInTheBackground(elapsed: Int, remaining: Int) {
        // A grace longer than the budget keeps the app in the background without a task.
        let policy = StandardPolicy(suspendGrace: .seconds(10_000), taskBudget: .seconds(30))
        let app = Fixture.background(at: .seconds(100), policy: policy)

        #expect(app.backgroundTimeRemaining(now: .seconds(100 + elapsed)) == .seconds(remaining))
    }

    @Test func timeRemainingIsNotLimitedToWholeSeconds() {
        let app = Fixture.background(at: .zero, tasks: ["upload"])

        #expect(app.backgroundTimeRemaining(now: .milliseconds(2_500)) == .milliseconds(27_500))
    }

    @Test func aTaskBeginsUntilTheBudgetIsSpent() throws {
        let policy = StandardPolicy(suspendGrace: .seconds(60), taskBudget: .seconds(30))
        var app = Fixture.background(at: .zero, policy: policy)

        let id = try app.beginGrantedTask(named: "just in time", now: .seconds(29))

        #expect(app.tasks == [id: "just in time"])
    }

    @Test("No task begins once the budget is spent", arguments: [30, 31, 45])
    func noTaskOnceTheBudgetIsSpent(seconds: Int) {
        // A grace longer than the budget keeps the app in the background without a task.
        let policy = StandardPolicy(suspendGrace: .seconds(60), taskBudget: .seconds(30))
        var app = Fixture.background(at: .zero, policy: policy)

        #expect(app.backgroundTimeRemaining(now: .seconds(seconds)) == .zero)
        #expect(app.beginTask(named: "too late", now: .seconds(seconds)) == nil)
        #expect(app.tasks.isEmpty)
        #expect(app.state == .background)
    }
}
