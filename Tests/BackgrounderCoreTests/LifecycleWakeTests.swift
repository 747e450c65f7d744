import BackgrounderCore
import Testing

@Suite("Life cycle: waking a suspended app for an event", .timeLimit(.minutes(5)))
struct LifecycleWakeTests {
    typealias Fixture = LifecycleFixture

    @Test func wakingASuspendedAppThawsItIntoTheBackground() {
        var app = Fixture.suspended(at: .zero)

        let actions = app.wake(now: .seconds(100))

        #expect(actions == [.resume])
        #expect(app.state == .background)
        #expect(app.terminating == nil)
    }

    @Test func aWokenAppGetsAFreshGrace() {
        var app = Fixture.suspended(at: .zero)
        _ = app.wake(now: .seconds(100))

        #expect(app.nextDeadline == .seconds(105))
        #expect(app.evaluate(now: .seconds(104)) == [])
        #expect(app.evaluate(now: .seconds(105)) == [.suspend])
        #expect(app.state == .suspended)
    }

    @Test func aWokenAppGetsAFreshBudgetForItsTasks() throws {
        var app = Fixture.suspended(at: .zero)
        _ = app.wake(now: .seconds(100))

        #expect(app.backgroundTimeRemaining(now: .seconds(100)) == .seconds(30))
        let id = try app.beginGrantedTask(named: "fetch", now: .seconds(101))
        #expect(app.nextDeadline == .seconds(125))
        #expect(app.evaluate(now: .seconds(125)) == [.expireTasks([id])])
        #expect(app.evaluate(now: .seconds(130)) == [.terminate(.backgroundTaskOverran)])
    }

    @Test func aWokenAppThatFinishesItsWorkIsSuspendedAfterTheGrace() throws {
        var app = Fixture.suspended(at: .zero)
        _ = app.wake(now: .seconds(100))
        let id = try app.beginGrantedTask(named: "fetch", now: .seconds(100))

        #expect(app.endTask(id, now: .seconds(110)) == [])

        #expect(app.nextDeadline == .seconds(115))
        #expect(app.evaluate(now: .seconds(115)) == [.suspend])
    }

    @Test("an app-refresh window that runs out ends the app after its warning; a processing window suspends it")
    func refreshOverrunTerminates() {
        var refreshing = Fixture.suspended(at: .zero)
        _ = refreshing.wake(now: .seconds(100))
        let refreshOpened = refreshing.openWindow(1, kind: .appRefresh, length: .seconds(30), now: .seconds(100))
        #expect(refreshOpened)
        let refreshWarned = refreshing.evaluate(now: .seconds(125))
        #expect(refreshWarned == [.expireWindows([1])])
        let refreshEnded = refreshing.evaluate(now: .seconds(130))
        #expect(refreshEnded == [.windowsClosed([1]), .terminate(.refreshTaskOverran)])
        #expect(refreshing.terminating == .refreshTaskOverran)

        var processing = Fixture.suspended(at: .zero)
        _ = processing.wake(now: .seconds(100))
        let processingOpened = processing.openWindow(2, kind: .processing, length: .seconds(30), now: .seconds(100))
        #expect(processingOpened)
        let processingWarned = processing.evaluate(now: .seconds(125))
        #expect(processingWarned == [.expireWindows([2])])
        let processingEnded = processing.evaluate(now: .seconds(130))
        #expect(processingEnded == [.windowsClosed([2]), .suspend])
        #expect(processing.terminating == nil && processing.state == .suspended)
    }

    @Test("a refresh that completes in time, or an app the person opened meanwhile, is not ended")
    func refreshInTimeIsNotEnded() {
        var completed = Fixture.suspended(at: .zero)
        _ = completed.wake(now: .seconds(100))
        _ = completed.openWindow(1, kind: .appRefresh, length: .seconds(30), now: .seconds(100))
        let completing = completed.completeWindow(1, now: .seconds(110))
        #expect(completing == [.suspend])
        let afterCompletion = completed.evaluate(now: .seconds(130))
        #expect(afterCompletion == [])

        var opened = Fixture.suspended(at: .zero)
        _ = opened.wake(now: .seconds(100))
        _ = opened.openWindow(1, kind: .appRefresh, length: .seconds(30), now: .seconds(100))
        _ = opened.moveToForeground(now: .seconds(110))
        let afterOpening = opened.evaluate(now: .seconds(130))
        #expect(afterOpening == [])
        #expect(opened.terminating == nil && opened.state == .active)
    }

    @Test func aWokenAppCanBeOpened() {
        var app = Fixture.suspended(at: .zero)
        _ = app.wake(now: .seconds(100))

        #expect(
            app.moveToForeground(now: .seconds(101)) == [.deliver(.willEnterForeground), .deliver(.didBecomeActive)])
        #expect(app.state == .active)
    }

    @Test(
        "Only a suspended app is woken",
        arguments: [ApplicationState.notRunning, .inactive, .active, .background]
    )
    func wakeOutsideSuspension(state: ApplicationState) {
        var app = Fixture.app(in: state)
        let deadline = app.nextDeadline

        #expect(app.wake(now: .seconds(2)) == [])
        #expect(app.state == state)
        #expect(app.nextDeadline == deadline)
    }

    @Test func aTerminatingAppIsNotWoken() {
        var app = Fixture.suspended(at: .zero)
        _ = app.terminate(.memoryPressure)

        #expect(app.wake(now: .seconds(10)) == [])
    }
}
