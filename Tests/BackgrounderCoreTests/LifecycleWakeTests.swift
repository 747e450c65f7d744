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
