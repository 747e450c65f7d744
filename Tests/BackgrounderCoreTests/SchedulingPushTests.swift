import BackgrounderCore
import Foundation
import Testing

/// The silent-push rate limit (``PushBudget``).
@Suite("Scheduling: push budget", .timeLimit(.minutes(5)))
struct SchedulingPushTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = SchedulingPolicy()  // a burst of 3, one more each 20 minutes

    @Test("a burst goes through; over budget only the latest is kept and is delivered when a token returns")
    func burstThenDeferred() {
        var budget = PushBudget(full: Self.policy, now: Self.t0)
        for payload in ["1", "2", "3"] {
            #expect(budget.offer(payload, policy: Self.policy, now: Self.t0) == .deliverNow)
        }
        let due = Self.t0.addingTimeInterval(1200)
        #expect(budget.offer("4", policy: Self.policy, now: Self.t0) == .deferred(until: due))
        #expect(budget.offer("5", policy: Self.policy, now: Self.t0.addingTimeInterval(600)) == .deferred(until: due))
        #expect(budget.pendingPayload == "5")
        #expect(budget.pendingDue(policy: Self.policy) == due)
        // Not yet; then the latest, once.
        #expect(budget.takeDue(policy: Self.policy, now: due.addingTimeInterval(-1)) == nil)
        #expect(budget.takeDue(policy: Self.policy, now: due) == "5")
        #expect(budget.takeDue(policy: Self.policy, now: due) == nil)
        #expect(budget.pendingDue(policy: Self.policy) == nil)
        // The token was spent on it: the next push waits another refill.
        #expect(budget.offer("6", policy: Self.policy, now: due) == .deferred(until: due.addingTimeInterval(1200)))
    }

    @Test("the bucket refills to the burst, no further")
    func refill() {
        var budget = PushBudget(full: Self.policy, now: Self.t0)
        for _ in 0..<3 { _ = budget.offer("x", policy: Self.policy, now: Self.t0) }
        #expect(budget.available(policy: Self.policy, now: Self.t0.addingTimeInterval(600)) == 0.5)
        #expect(budget.available(policy: Self.policy, now: Self.t0.addingTimeInterval(86_400)) == 3)
    }

    @Test("a push arriving when a token is back supersedes the pending one and goes now")
    func latestWins() {
        var budget = PushBudget(full: Self.policy, now: Self.t0)
        for payload in ["1", "2", "3", "4"] { _ = budget.offer(payload, policy: Self.policy, now: Self.t0) }
        #expect(budget.offer("5", policy: Self.policy, now: Self.t0.addingTimeInterval(1300)) == .deliverNow)
        #expect(budget.pendingPayload == nil)
    }

    @Test(
        "odd numbers: a burst below 1 still lets one through; a refill of 0 is no limit; a clock set back gains nothing"
    )
    func oddNumbers() {
        var policy = Self.policy
        policy.pushBurst = 0
        var budget = PushBudget(full: policy, now: Self.t0)
        #expect(budget.offer("1", policy: policy, now: Self.t0) == .deliverNow)
        #expect(budget.offer("2", policy: policy, now: Self.t0) == .deferred(until: Self.t0.addingTimeInterval(1200)))

        policy.pushRefill = .zero
        var unlimited = PushBudget(full: policy, now: Self.t0)
        for _ in 0..<100 { #expect(unlimited.offer("x", policy: policy, now: Self.t0) == .deliverNow) }

        var back = PushBudget(full: Self.policy, now: Self.t0)
        for _ in 0..<3 { _ = back.offer("x", policy: Self.policy, now: Self.t0) }
        #expect(back.available(policy: Self.policy, now: Self.t0.addingTimeInterval(-3600)) == 0)
    }
}
