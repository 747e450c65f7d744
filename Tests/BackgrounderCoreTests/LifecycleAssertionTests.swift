import BackgrounderCore
import Testing

@Suite("Life cycle: assertions (audio, location)", .timeLimit(.minutes(5)))
struct LifecycleAssertionTests {
    typealias Fixture = LifecycleFixture

    @Test func anAssertionTakenInTheForegroundKeepsTheAppRunningInTheBackground() {
        var app = Fixture.active(at: .zero)
        #expect(app.setAssertion(.audio, held: true, now: .seconds(1)) == [])

        let actions = app.moveToBackground(now: .seconds(2))

        #expect(actions == [.deliver(.willResignActive), .deliver(.didEnterBackground)])
        #expect(app.assertions == [.audio])
        #expect(app.nextDeadline == nil)
        #expect(app.evaluate(now: .seconds(7)) == [])
        #expect(app.evaluate(now: .seconds(3_600)) == [])
        #expect(app.state == .background)
    }

    @Test func anAssertionTakenDuringTheGraceCancelsTheSuspension() {
        var app = Fixture.background(at: .zero)
        #expect(app.nextDeadline == .seconds(5))

        #expect(app.setAssertion(.location, held: true, now: .seconds(3)) == [])

        #expect(app.nextDeadline == nil)
        #expect(app.evaluate(now: .seconds(5)) == [])
        #expect(app.state == .background)
    }

    @Test func releasingTheAssertionSuspendsAfterTheGraceFromTheRelease() {
        var app = Fixture.active(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)
        _ = app.moveToBackground(now: .seconds(10))

        #expect(app.setAssertion(.audio, held: false, now: .seconds(100)) == [])

        #expect(app.assertions.isEmpty)
        #expect(app.nextDeadline == .seconds(105))
        #expect(app.evaluate(now: .seconds(104)) == [])
        #expect(app.state == .background)
        #expect(app.evaluate(now: .seconds(105)) == [.suspend])
        #expect(app.state == .suspended)
    }

    @Test func anAssertionDoesNotKeepAnExitsOnSuspendAppPastHome() {
        // It has no background phase, so audio begun in front does not carry it there.
        var app = Fixture.active(at: .zero, manifest: Fixture.exitsOnSuspendManifest)
        _ = app.setAssertion(.audio, held: true, now: .zero)

        let actions = app.moveToBackground(now: .seconds(10))

        #expect(actions.last == .terminate(.exitsOnSuspend))
        #expect(app.terminating == .exitsOnSuspend)
    }

    @Test func releasingWithAZeroGraceSuspendsAtOnce() {
        let policy = StandardPolicy(suspendGrace: .zero)
        var app = Fixture.active(at: .zero, policy: policy)
        _ = app.setAssertion(.audio, held: true, now: .zero)
        _ = app.moveToBackground(now: .seconds(10))

        #expect(app.setAssertion(.audio, held: false, now: .seconds(20)) == [.suspend])
        #expect(app.state == .suspended)
    }

    @Test func everyAssertionMustBeReleasedBeforeTheGraceStarts() {
        var app = Fixture.active(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)
        _ = app.setAssertion(.location, held: true, now: .zero)
        _ = app.moveToBackground(now: .seconds(1))

        #expect(app.setAssertion(.audio, held: false, now: .seconds(50)) == [])
        #expect(app.assertions == [.location])
        #expect(app.nextDeadline == nil)
        #expect(app.evaluate(now: .seconds(55)) == [])

        #expect(app.setAssertion(.location, held: false, now: .seconds(60)) == [])
        #expect(app.nextDeadline == .seconds(65))
    }

    @Test func takingTheSameAssertionTwiceNeedsOneRelease() {
        var app = Fixture.background(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .seconds(1))
        _ = app.setAssertion(.audio, held: true, now: .seconds(2))

        #expect(app.assertions == [.audio])
        _ = app.setAssertion(.audio, held: false, now: .seconds(3))
        #expect(app.assertions.isEmpty)
        #expect(app.nextDeadline == .seconds(8))
    }

    @Test func releasingAnAssertionThatIsNotHeldDoesNothing() {
        var app = Fixture.background(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .seconds(1))

        #expect(app.setAssertion(.location, held: false, now: .seconds(2)) == [])
        #expect(app.assertions == [.audio])
        #expect(app.nextDeadline == nil)
    }

    @Test func releasingAnAssertionNeverHeldDoesNotRestartTheGrace() {
        var app = Fixture.background(at: .zero)

        #expect(app.setAssertion(.audio, held: false, now: .seconds(4)) == [])
        #expect(app.nextDeadline == .seconds(5))
    }

    @Test func releasingAnAssertionInTheForegroundLeavesTheAppActive() {
        var app = Fixture.active(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)

        #expect(app.setAssertion(.audio, held: false, now: .seconds(1)) == [])
        #expect(app.state == .active)
        #expect(app.nextDeadline == nil)
    }

    @Test func anAssertionReleasedInTheForegroundDoesNotShortenTheNextGrace() {
        var app = Fixture.active(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)
        _ = app.setAssertion(.audio, held: false, now: .seconds(1))

        _ = app.moveToBackground(now: .seconds(100))

        #expect(app.nextDeadline == .seconds(105))
    }

    @Test func aTaskEndingWhileAnAssertionIsHeldStartsNoGrace() throws {
        var app = Fixture.active(at: .zero)
        let id = try app.beginGrantedTask(named: "upload", now: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)
        _ = app.moveToBackground(now: .seconds(1))

        #expect(app.endTask(id, now: .seconds(10)) == [])

        #expect(app.nextDeadline == nil)
        #expect(app.evaluate(now: .seconds(15)) == [])
        #expect(app.state == .background)
    }

    @Test func theGraceCountsFromWhicheverEndedLastTaskOrAssertion() throws {
        var app = Fixture.active(at: .zero)
        let id = try app.beginGrantedTask(named: "upload", now: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)
        _ = app.moveToBackground(now: .seconds(1))
        _ = app.setAssertion(.audio, held: false, now: .seconds(8))
        // The task budget starts when the audio stops, not when the app left the foreground:
        // expiration warning at 8 + 30 - 5.
        #expect(app.nextDeadline == .seconds(33))

        _ = app.endTask(id, now: .seconds(12))

        #expect(app.nextDeadline == .seconds(17))
        #expect(app.evaluate(now: .seconds(16)) == [])
        #expect(app.evaluate(now: .seconds(17)) == [.suspend])
    }
}
