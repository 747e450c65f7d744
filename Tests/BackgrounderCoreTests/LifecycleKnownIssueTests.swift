import BackgrounderCore
import Testing

/// Places where ``AppLifecycle`` once departed from iOS (found by these tests, then fixed):
/// each test states what iOS does.
@Suite("Life cycle: former departures from iOS", .timeLimit(.minutes(5)))
struct LifecycleKnownIssueTests {
    typealias Fixture = LifecycleFixture

    @Test func aTerminatingSuspendedAppIsNotBroughtBackByOpeningIt() {
        var app = Fixture.suspended()
        #expect(app.terminate(.forceQuit) == [.resume, .terminate(.forceQuit)])

        let actions = app.moveToForeground(now: .seconds(10))

        #expect(actions == [])
        #expect(app.state != .active)
    }

    @Test func anExitsOnSuspendAppToldWillTerminateIsNotMadeActive() {
        var app = Fixture.active(at: .zero, manifest: Fixture.exitsOnSuspendManifest)
        #expect(
            app.moveToBackground(now: .seconds(5)) == [
                .deliver(.willResignActive), .deliver(.willTerminate), .terminate(.exitsOnSuspend),
            ])

        let actions = app.moveToForeground(now: .seconds(6))

        #expect(actions == [])
        #expect(app.state != .active)
    }

    @Test func aSuspendedAppNeverHoldsAnAssertion() {
        var app = Fixture.suspended()

        let actions = app.setAssertion(.audio, held: true, now: .seconds(10))

        #expect(app.state != .suspended || app.assertions.isEmpty)
        #expect(actions == [])
    }

    @Test func playingAudioKeepsBackgroundTasksFromExpiring() throws {
        // On iOS an app running on an unlimited background mode (audio, location) has
        // `backgroundTimeRemaining == .greatestFiniteMagnitude`; its tasks neither expire nor
        // get it killed while the mode is in use.
        var app = Fixture.active(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)
        _ = try app.beginGrantedTask(named: "upload", now: .zero)
        _ = app.moveToBackground(now: .zero)

        let atWarning = app.evaluate(now: .seconds(25))
        let atBudget = app.evaluate(now: .seconds(30))

        #expect(atWarning == [])
        #expect(atBudget == [])
        #expect(app.terminating == nil)
    }

    @Test func playingAudioLeavesTimeForNewTasks() {
        var app = Fixture.background(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .seconds(1))

        let id = app.beginTask(named: "upload", now: .seconds(40))

        #expect(id != nil)
    }

    @Test func aTaskBegunAfterTheWarningIsExpiredBeforeTheAppIsKilled() {
        var app = Fixture.background(at: .zero, tasks: ["upload"])
        #expect(app.evaluate(now: .seconds(25)) == [.expireTasks([1])])
        let late = app.beginTask(named: "save", now: .seconds(26))

        var actions: [AppLifecycle.Action] = []
        for _ in 0..<4 {
            guard let deadline = app.nextDeadline, deadline <= .seconds(30) else { break }
            actions += app.evaluate(now: deadline)
        }

        #expect(late == nil || actions.contains(.expireTasks([1, 2])) || actions.contains(.expireTasks([2])))
    }
}
