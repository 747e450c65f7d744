import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Testing

@Suite("Transfer retry backoff", .timeLimit(.minutes(5)))
struct TransferBackoffTests {
    let policy = SchedulingPolicy()

    @Test("the ceiling doubles from the policy's first delay and stops at its cap")
    func ceilings() {
        let backoff = TransferBackoff(policy: policy, jitter: .none)
        let seconds = (1...12).map { backoff.ceiling(retry: $0) }
        #expect(
            seconds == [2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600, 600].map { Duration.seconds($0) })
        #expect(backoff.ceiling(retry: 0) == .seconds(2))
        #expect(backoff.ceiling(retry: 10_000) == .seconds(600))
        #expect(backoff.ceiling(retry: .max) == .seconds(600))
        var generator = SeededGenerator(seed: 1)
        #expect(backoff.delay(retry: 3, using: &generator) == .seconds(8))
    }

    @Test("full jitter stays within zero and the ceiling and spreads across it")
    func fullJitter() {
        let backoff = TransferBackoff(policy: policy, jitter: .full)
        var generator = SeededGenerator(seed: 42)
        let delays = (0..<2_000).map { _ in backoff.delay(retry: 4, using: &generator) }
        #expect(delays.allSatisfy { $0 >= .zero && $0 <= .seconds(16) })
        #expect(delays.contains { $0 < .seconds(2) })
        #expect(delays.contains { $0 > .seconds(14) })
        #expect(Set(delays).count > 1_000)
    }

    @Test("equal jitter never goes below half the ceiling")
    func equalJitter() {
        let backoff = TransferBackoff(policy: policy, jitter: .equal)
        var generator = SeededGenerator(seed: 7)
        let delays = (0..<2_000).map { _ in backoff.delay(retry: 20, using: &generator) }
        #expect(delays.allSatisfy { $0 >= .seconds(300) && $0 <= .seconds(600) })
        #expect(delays.contains { $0 < .seconds(320) })
        #expect(delays.contains { $0 > .seconds(580) })
    }

    @Test("the same seed draws the same delays")
    func deterministic() {
        let backoff = TransferBackoff(policy: policy)
        var first = SeededGenerator(seed: 99)
        var second = SeededGenerator(seed: 99)
        #expect(
            (1...20).map { backoff.delay(retry: $0, using: &first) }
                == (1...20).map { backoff.delay(retry: $0, using: &second) })
    }

    @Test("a server's Retry-After wins over the backoff, but never beyond the cap")
    func retryAfterWins() {
        let backoff = TransferBackoff(policy: policy, jitter: .none)
        var generator = SeededGenerator(seed: 3)
        #expect(backoff.delay(retry: 1, retryAfter: .seconds(120), using: &generator) == .seconds(120))
        #expect(backoff.delay(retry: 9, retryAfter: .seconds(1), using: &generator) == .seconds(1))
        #expect(backoff.delay(retry: 1, retryAfter: .seconds(86_400 * 7), using: &generator) == .seconds(600))
        #expect(backoff.delay(retry: 2, retryAfter: nil, using: &generator) == .seconds(4))
    }

    @Test("a zero or negative policy gives zero delays instead of trapping")
    func degenerate() {
        var generator = SeededGenerator(seed: 5)
        let zero = TransferBackoff(base: .zero, cap: .zero)
        #expect(zero.delay(retry: 5, using: &generator) == .zero)
        let negative = TransferBackoff(base: .seconds(-3), cap: .seconds(-1), jitter: .equal)
        #expect(negative.delay(retry: 5, using: &generator) == .zero)
        let huge = TransferBackoff(base: .seconds(1), cap: .seconds(Int64.max), jitter: .full)
        #expect(huge.delay(retry: 200, using: &generator) >= .zero)
    }
}
