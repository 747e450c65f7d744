import BackgrounderAppCore
import BackgrounderCore
import Foundation
import Testing

@testable import BackgrounderApps

/// A clock that moves only when the test moves it: a sleep returns when ``advance(to:)``
/// passes its deadline, or throws when its task is cancelled.
final class SteppedClock: CoreClock {
    private struct Sleeper {
        let id: Int
        let deadline: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let state = Locked((now: Duration.zero, sleepers: [Sleeper](), nextID: 0))

    var now: Duration { state.withLock { $0.now } }
    var wallClock: Date { Date(timeIntervalSince1970: 1_800_000_000 + now.seconds) }
    /// Sleeps not yet over: how many timer tasks wait.
    var sleeping: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A task cancelled before it got here had its handler run already.
                let cancelled = Task.isCancelled
                let ready = state.withLock { state in
                    guard deadline > state.now, !cancelled else { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if cancelled {
                    continuation.resume(throwing: CancellationError())
                } else if ready {
                    continuation.resume()
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state in
                let cancelled = state.sleepers.filter { $0.id == id }
                state.sleepers.removeAll { $0.id == id }
                return cancelled
            }
            for sleeper in cancelled { sleeper.continuation.resume(throwing: CancellationError()) }
        }
    }

    func advance(to time: Duration) {
        let woken = state.withLock { state in
            state.now = time
            let woken = state.sleepers.filter { $0.deadline <= time }
            state.sleepers.removeAll { $0.deadline <= time }
            return woken
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}

@Suite("The app core's one timer")
@AppCoreActor
struct DeadlineTimerTests {
    let clock = SteppedClock()
    /// The owners each firing reported, in order.
    let fired = Locked<[[DeadlineTimer.Owner]]>([])

    /// Waits for a condition on the actor the timer's task runs on, giving it turns.
    func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    func timer() -> DeadlineTimer {
        DeadlineTimer(clock: clock) { [fired] owners in fired.withLock { $0.append(owners) } }
    }

    @Test(
        "deadlines fire at their time on the clock, soonest first; deadlines that fall together fire as one, apps first by name"
    )
    func firesInOrder() async throws {
        let timer = timer()
        let capability = DeadlineTimer.Owner.capability(ObjectIdentifier(SteppedClock.self))
        timer.set(.seconds(10), for: .app("b"))
        timer.set(.seconds(10), for: capability)
        timer.set(.seconds(10), for: .app("a"))
        timer.set(.seconds(5), for: .app("c"))
        #expect(await eventually { clock.sleeping == 1 }, "one task sleeps, for the soonest")

        clock.advance(to: .seconds(4))
        #expect(clock.sleeping == 1)
        #expect(fired.withLock { $0 }.isEmpty, "nothing before its time")

        clock.advance(to: .seconds(5))
        #expect(await eventually { fired.withLock { $0.count } == 1 })
        #expect(fired.withLock { $0 } == [[.app("c")]])

        #expect(await eventually { clock.sleeping == 1 }, "armed again for the next")
        clock.advance(to: .seconds(12))
        #expect(await eventually { fired.withLock { $0.count } == 2 })
        #expect(fired.withLock { $0.last } == [DeadlineTimer.Owner.app("a"), .app("b"), capability])
        #expect(timer.deadline(of: .app("a")) == nil)
    }

    @Test("a deadline moved or cleared before its time does not fire then; with none left no task sleeps")
    func movedAndCleared() async throws {
        let timer = timer()
        timer.set(.seconds(5), for: .app("a"))
        #expect(await eventually { clock.sleeping == 1 })
        timer.set(.seconds(20), for: .app("a"))
        #expect(timer.deadline(of: .app("a")) == .seconds(20))
        clock.advance(to: .seconds(10))
        #expect(await eventually { clock.sleeping == 1 }, "the earlier sleep was cancelled, one sleeps for 20 s")
        #expect(fired.withLock { $0 }.isEmpty)

        timer.set(nil, for: .app("a"))
        #expect(await eventually { clock.sleeping == 0 }, "no deadline, no timer")
        clock.advance(to: .seconds(30))
        await Task.yield()
        #expect(fired.withLock { $0 }.isEmpty)
    }

    @Test("a wall-clock date becomes core time in one place, as the wall clock reads now, and back")
    func wallClockDates() {
        clock.advance(to: .seconds(100))
        let inOneMinute = clock.wallClock.addingTimeInterval(60)
        #expect(clock.instant(of: inOneMinute) == .seconds(160))
        #expect(clock.instant(of: clock.wallClock.addingTimeInterval(-30)) == .seconds(70))
        // And back, for what a person reads.
        #expect(clock.date(of: .seconds(160)) == inOneMinute)
        #expect(clock.date(of: clock.instant(of: inOneMinute)) == inOneMinute)
    }
}
