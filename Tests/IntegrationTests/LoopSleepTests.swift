import Testing

@testable import BackgrounderSystem

/// ``LoopSleep``, the daemon's one way to wait: never early, and ended by cancellation.
@Suite("Sleeping on the event loops")
struct LoopSleepTests {
    @Test("returns no earlier than its deadline")
    func notEarly() async throws {
        let deadline = ContinuousClock.now + .milliseconds(50)
        try await LoopSleep.sleep(until: deadline)
        #expect(ContinuousClock.now >= deadline)
        // A deadline already passed returns at once.
        try await LoopSleep.sleep(until: deadline)
    }

    @Test("cancelled, a sleep of an hour throws CancellationError; cancelled before it starts, too")
    func cancellation() async throws {
        let sleeping = Task { try await LoopSleep.sleep(for: .seconds(3600)) }
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }

        let started = AsyncStream<Void>.makeStream()
        let late = Task {
            started.continuation.finish()
            try await LoopSleep.sleep(for: .seconds(3600))
        }
        for await _ in started.stream {}
        late.cancel()
        await #expect(throws: CancellationError.self) { try await late.value }
    }
}
