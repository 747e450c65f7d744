import BackgrounderCore
import BackgrounderTestSupport
import Testing

@testable import BackgrounderSystem

/// ``BootSleep``, the daemon's one way to wait: never early, and ended by cancellation
/// whether it comes before the sleep is entered or while it waits.
@Suite("Sleeping on the daemon's timer", .serialized)
struct BootSleepTests {
    @Test("returns no earlier than its deadline; a deadline already passed returns at once")
    func notEarly() async throws {
        let deadline = ContinuousClock.now + .milliseconds(50)
        try await BootSleep.sleep(until: deadline)
        #expect(ContinuousClock.now >= deadline)
        try await BootSleep.sleep(until: deadline)
    }

    @Test("several sleeps end in deadline order, whatever order they were entered in")
    func order() async throws {
        let ends = Locked<[Int]>([])
        await withTaskGroup(of: Void.self) { group in
            for (index, milliseconds) in [120, 40, 80].enumerated() {
                group.addTask {
                    try? await BootSleep.sleep(for: .milliseconds(milliseconds))
                    ends.withLock { $0.append(index) }
                }
            }
        }
        #expect(ends.withLock { $0 } == [1, 2, 0])
    }

    @Test("cancelled before the sleep is entered: CancellationError, and nothing stays in the table")
    func cancelledFirst() async throws {
        // A timer of its own: the shared one also holds the sleeps of tests running beside it.
        let timer = BootTimer()
        let sleeping = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await timer.sleep(until: .now + .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(timer.count == 0)
    }

    @Test("cancelled while it waits in the table: CancellationError at once, and it leaves the table")
    func cancelledWhileWaiting() async throws {
        let timer = BootTimer()
        let sleeping = Task { try await timer.sleep(until: .now + .seconds(3600)) }
        #expect(await waitUntil { timer.count == 1 })
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(timer.count == 0)
    }
}
