import BackgrounderCore
import Testing

@Suite("A background player frozen between refills", .timeLimit(.minutes(1)))
struct RefillFreezeTests {
    typealias Fixture = LifecycleFixture

    /// A player in the background whose only reason to run is its audio.
    static func player() -> AppLifecycle {
        var app = Fixture.active(at: .zero)
        _ = app.setAssertion(.audio, held: true, now: .zero)
        _ = app.moveToBackground(now: .seconds(1))
        return app
    }

    @Test("only a background app whose one reason to run is its audio may be frozen between refills")
    func whoMayBeFrozen() {
        let player = Self.player()
        #expect(RefillFreeze.allows(player, inFront: false))
        // In front (a person sees it), or not in the background at all.
        #expect(!RefillFreeze.allows(player, inFront: true))
        #expect(!RefillFreeze.allows(Fixture.active(at: .zero), inFront: false))
        // Finishing a task: it has work of its own to do.
        var finishing = Self.player()
        _ = finishing.beginTask(named: "save", now: .seconds(2))
        #expect(!RefillFreeze.allows(finishing, inFront: false))
        // Also following the location: its fixes must be heard as they come.
        var walking = Self.player()
        _ = walking.setAssertion(.location, held: true, now: .seconds(2))
        #expect(!RefillFreeze.allows(walking, inFront: false))
        // Its audio stopped: the life cycle decides (it suspends after the grace).
        var stopped = Self.player()
        _ = stopped.setAssertion(.audio, held: false, now: .seconds(2))
        #expect(!RefillFreeze.allows(stopped, inFront: false))
        // Handling an event it was woken for.
        var woken = Self.player()
        let opened = woken.openWindow(1, kind: .fetch, length: .seconds(30), now: .seconds(2))
        #expect(opened)
        #expect(!RefillFreeze.allows(woken, inFront: false))
    }

    @Test("frozen time adds up over freezes, the current one included; a second freeze or thaw counts once")
    func accounting() {
        var refill = RefillFreeze()
        #expect(!refill.isFrozen && refill.total(at: .seconds(5)) == .zero)
        refill.froze(at: .seconds(1))
        refill.froze(at: .seconds(2))
        #expect(refill.isFrozen && refill.count == 1)
        #expect(refill.total(at: .milliseconds(1_500)) == .milliseconds(500))
        refill.thawed(at: .seconds(3))
        refill.thawed(at: .seconds(4))
        #expect(!refill.isFrozen && refill.total(at: .seconds(10)) == .seconds(2))
        refill.froze(at: .seconds(10))
        #expect(refill.count == 2 && refill.total(at: .seconds(11)) == .seconds(3))
    }
}
