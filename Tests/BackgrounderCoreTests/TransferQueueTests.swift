import BackgrounderCore
import Foundation
import Testing

@Suite("Which transfers start, and why the others wait", .timeLimit(.minutes(5)))
struct TransferQueueTests {
    let now = Date(timeIntervalSince1970: 1_000_000)
    let online = DeviceConditions(externalPower: true, network: true, idleSince: nil)
    let policy = SchedulingPolicy()

    func at(_ seconds: Double) -> Date { now.addingTimeInterval(seconds) }

    @Test("each app runs at most transferConcurrency at once, oldest first")
    func concurrency() {
        let waiting = (1...6).map { TransferQueue.Waiting(id: $0, bundle: "org.a", created: at(-Double($0))) }
        let plan = TransferQueue.plan(
            waiting: waiting, running: ["org.a": 1], foreground: nil, conditions: online, policy: policy, now: now)
        #expect(plan.start == [6, 5, 4])
        #expect(plan.waits == [3: .concurrency, 2: .concurrency, 1: .concurrency])
        #expect(plan.nextCheck == nil)
    }

    @Test("the app in front goes first, then the oldest; apps do not share one another's slots")
    func fairness() {
        var policy = policy
        policy.transferConcurrency = 1
        let waiting = [
            TransferQueue.Waiting(id: 1, bundle: "org.old", created: at(-100)),
            TransferQueue.Waiting(id: 2, bundle: "org.front", created: at(-10)),
            TransferQueue.Waiting(id: 3, bundle: "org.front", created: at(-20)),
            TransferQueue.Waiting(id: 4, bundle: "org.new", created: at(-5)),
            TransferQueue.Waiting(id: 5, bundle: "org.old", created: at(-100)),
        ]
        let plan = TransferQueue.plan(
            waiting: waiting, running: [:], foreground: "org.front", conditions: online, policy: policy, now: now)
        #expect(plan.start == [3, 1, 4])
        #expect(plan.waits == [2: .concurrency, 5: .concurrency])
    }

    @Test("no network holds everything; no power holds only discretionary transfers")
    func conditions() {
        let waiting = [
            TransferQueue.Waiting(id: 1, bundle: "org.a", created: at(-2), discretionary: true),
            TransferQueue.Waiting(id: 2, bundle: "org.a", created: at(-1)),
        ]
        let offline = DeviceConditions(externalPower: true, network: false, idleSince: nil)
        let battery = DeviceConditions(externalPower: false, network: true, idleSince: nil)
        let none = TransferQueue.plan(
            waiting: waiting, running: [:], foreground: nil, conditions: offline, policy: policy, now: now)
        #expect(none.start.isEmpty && none.waits == [1: .network, 2: .network])
        let some = TransferQueue.plan(
            waiting: waiting, running: [:], foreground: nil, conditions: battery, policy: policy, now: now)
        #expect(some.start == [2] && some.waits == [1: .externalPower])
    }

    @Test("dates hold a transfer until they pass, and the earliest is the next check")
    func dates() {
        let waiting = [
            TransferQueue.Waiting(id: 1, bundle: "org.a", created: at(-5), retryAt: at(8)),
            TransferQueue.Waiting(id: 2, bundle: "org.a", created: at(-4), earliestBeginDate: at(60)),
            TransferQueue.Waiting(id: 3, bundle: "org.a", created: at(-3), earliestBeginDate: at(-1), retryAt: at(0)),
            TransferQueue.Waiting(id: 4, bundle: "org.b", created: at(-2), retryAt: at(3)),
        ]
        let offline = DeviceConditions(externalPower: true, network: false, idleSince: nil)
        let plan = TransferQueue.plan(
            waiting: waiting, running: [:], foreground: nil, conditions: offline, policy: policy, now: now)
        #expect(plan.waits == [1: .retry, 2: .earliestBeginDate, 3: .network, 4: .retry])
        #expect(plan.nextCheck == at(3))
        let later = TransferQueue.plan(
            waiting: waiting, running: [:], foreground: nil, conditions: online, policy: policy, now: at(60))
        #expect(later.start == [1, 2, 3, 4] && later.waits.isEmpty && later.nextCheck == nil)
    }

    @Test("a policy of zero concurrency still lets one run, so no transfer waits forever")
    func zeroConcurrency() {
        var policy = policy
        policy.transferConcurrency = 0
        let plan = TransferQueue.plan(
            waiting: [.init(id: 1, bundle: "org.a", created: now)], running: [:], foreground: nil, conditions: online,
            policy: policy, now: now)
        #expect(plan.start == [1])
    }

    @Test("admission refuses past the pending count or the disk limit, naming the numbers")
    func admission() {
        var policy = policy
        policy.transferPending = 200
        policy.transferDiskBytes = 8 << 30
        #expect(
            TransferQueue.admit(bundle: "org.x", pendingCount: 199, diskBytes: 0, expected: nil, policy: policy) == nil)
        #expect(
            TransferQueue.admit(bundle: "org.x", pendingCount: 200, diskBytes: 0, expected: nil, policy: policy)
                == "org.x has 200 transfers pending, the most the policy allows (200)")
        #expect(
            TransferQueue.admit(bundle: "org.x", pendingCount: 3, diskBytes: 7 << 30, expected: 1 << 30, policy: policy)
                == nil)
        #expect(
            TransferQueue.admit(
                bundle: "org.x", pendingCount: 3, diskBytes: 7 << 30, expected: (1 << 30) + 1, policy: policy)
                == "org.x's transfers hold 7 GiB on disk and this transfer expects 1 GiB more: the policy allows 8 GiB")
        #expect(
            TransferQueue.admit(bundle: "org.x", pendingCount: 3, diskBytes: 8 << 30, expected: nil, policy: policy)
                == "org.x's transfers hold 8 GiB on disk: the policy allows 8 GiB")
        #expect(
            TransferQueue.admit(bundle: "org.x", pendingCount: 3, diskBytes: 0, expected: .max, policy: policy) != nil)
        #expect(
            TransferQueue.admit(bundle: "org.x", pendingCount: 3, diskBytes: 0, expected: -5, policy: policy) == nil)
    }
}
