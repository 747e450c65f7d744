import BackgrounderCore
import Foundation
import Testing

/// Background fetch: interval, backoff, favour and daily budget (``FetchScheduler``).
@Suite("Scheduling: background fetch", .timeLimit(.minutes(5)))
struct SchedulingFetchTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = SchedulingPolicy()

    static func history(_ interval: BackgroundFetchInterval, lastAt offset: TimeInterval? = nil) -> FetchHistory {
        var history = FetchHistory(interval: interval)
        if let offset { history.launched(at: t0.addingTimeInterval(offset)) }
        return history
    }

    @Test("an app that has never fetched may fetch now; .never means no fetch")
    func firstAndNever() {
        #expect(FetchScheduler.nextFetch(Self.history(.minimum), policy: Self.policy, now: Self.t0) == Self.t0)
        #expect(FetchScheduler.waits(Self.history(.minimum), policy: Self.policy, now: Self.t0).isEmpty)
        #expect(FetchScheduler.nextFetch(Self.history(.never), policy: Self.policy, now: Self.t0) == nil)
        #expect(FetchScheduler.waits(Self.history(.never), policy: Self.policy, now: Self.t0) == [.never])
    }

    @Test("a never-fetched app is due from when it set its interval, a fixed moment; setting it again changes nothing")
    func dueFromIntervalSet() {
        var history = FetchHistory()
        history.setInterval(.minimum, at: Self.t0)
        history.setInterval(.minimum, at: Self.t0.addingTimeInterval(50))
        #expect(history.intervalSetAt == Self.t0)
        for later in [10.0, 500, 5000] {
            let now = Self.t0.addingTimeInterval(later)
            #expect(FetchScheduler.nextFetch(history, policy: Self.policy, now: now) == Self.t0)
        }
        history.setInterval(.seconds(3600), at: Self.t0.addingTimeInterval(60))
        #expect(history.intervalSetAt == Self.t0.addingTimeInterval(60))
    }

    @Test(
        "never before the larger of the app's interval and the policy's minimum",
        arguments: [
            (BackgroundFetchInterval.minimum, 900.0), (.seconds(60), 900), (.seconds(3600), 3600),
            (.seconds(900.5), 900.5),
        ])
    func interval(_ interval: BackgroundFetchInterval, expected: TimeInterval) {
        let history = Self.history(interval, lastAt: 0)
        let next = FetchScheduler.nextFetch(history, policy: Self.policy, now: Self.t0)
        #expect(next == Self.t0.addingTimeInterval(expected))
        #expect(
            FetchScheduler.waits(history, policy: Self.policy, now: Self.t0)
                == [.backoff(until: Self.t0.addingTimeInterval(expected))])
        // Due exactly then, and nothing to wait for after.
        #expect(FetchScheduler.waits(history, policy: Self.policy, now: next!).isEmpty)
    }

    @Test("each .noData or .failed doubles the wait, up to the cap; .newData resets it")
    func backoff() {
        var history = Self.history(.minimum, lastAt: 0)
        var waits: [TimeInterval] = []
        for result in [BackgroundFetchResult.noData, .failed, .noData, .noData, .failed, .noData, .noData, .noData] {
            history.record(result, at: Self.t0)
            waits.append(
                FetchScheduler.nextFetch(history, policy: Self.policy, now: Self.t0)!.timeIntervalSince(Self.t0))
        }
        #expect(waits == [1800, 3600, 7200, 14_400, 28_800, 28_800, 28_800, 28_800])
        history.record(.newData, at: Self.t0)
        #expect(FetchScheduler.nextFetch(history, policy: Self.policy, now: Self.t0) == Self.t0.addingTimeInterval(900))
    }

    @Test("the cap never makes an app fetch sooner than it asked")
    func capBelowInterval() {
        var history = Self.history(.seconds(12 * 3600), lastAt: 0)
        history.record(.noData, at: Self.t0)
        #expect(
            FetchScheduler.nextFetch(history, policy: Self.policy, now: Self.t0)
                == Self.t0.addingTimeInterval(12 * 3600))
    }

    @Test("a long run of empty results does not overflow")
    func manyEmpty() {
        var history = Self.history(.minimum, lastAt: 0)
        for _ in 0..<10_000 { history.record(.failed, at: Self.t0) }
        #expect(history.consecutiveEmpty == FetchHistory.maximumConsecutiveEmpty)
        #expect(
            FetchScheduler.nextFetch(history, policy: Self.policy, now: Self.t0) == Self.t0.addingTimeInterval(28_800))
    }

    @Test("an app opened within favouredWithin fetches at its plain interval; the favour then ends")
    func favouredWhenOpened() {
        var history = Self.history(.minimum, lastAt: 0)
        for _ in 0..<4 { history.record(.noData, at: Self.t0) }
        let opened = Self.t0.addingTimeInterval(60)
        history.opened(at: opened)
        #expect(history.lastOpenedAt == opened)
        #expect(FetchScheduler.isFavoured(history, policy: Self.policy, now: opened))
        #expect(FetchScheduler.nextFetch(history, policy: Self.policy, now: opened) == Self.t0.addingTimeInterval(900))
        let later = opened.addingTimeInterval(3600)
        #expect(!FetchScheduler.isFavoured(history, policy: Self.policy, now: later))
        #expect(
            FetchScheduler.nextFetch(history, policy: Self.policy, now: later) == Self.t0.addingTimeInterval(14_400))
    }

    @Test("an app whose last fetch brought new data is favoured")
    func favouredAfterNewData() {
        var history = Self.history(.minimum, lastAt: 0)
        history.record(.newData, at: Self.t0)
        #expect(FetchScheduler.isFavoured(history, policy: Self.policy, now: Self.t0))
        history.record(.noData, at: Self.t0)
        #expect(!FetchScheduler.isFavoured(history, policy: Self.policy, now: Self.t0))
    }

    @Test("the daily budget: no more launches in any 24 hours, and the wait says until when")
    func dailyBudget() {
        var policy = Self.policy
        policy.dailyFetchBudget = 3
        policy.minimumFetchInterval = .seconds(60)
        var history = Self.history(.minimum)
        for offset in [0.0, 100, 200] { history.launched(at: Self.t0.addingTimeInterval(offset)) }
        let now = Self.t0.addingTimeInterval(1000)
        let until = Self.t0.addingTimeInterval(86_400)
        #expect(FetchScheduler.waits(history, policy: policy, now: now) == [.budget(until: until)])
        #expect(FetchScheduler.nextFetch(history, policy: policy, now: now) == until)
        // Both reasons are listed when both hold.
        let soon = Self.t0.addingTimeInterval(210)
        #expect(
            FetchScheduler.waits(history, policy: policy, now: soon)
                == [.backoff(until: Self.t0.addingTimeInterval(260)), .budget(until: until)])
        #expect(FetchScheduler.waits(history, policy: policy, now: until).isEmpty)
    }

    @Test("a daily budget of 0 turns scheduled fetch off")
    func zeroBudget() {
        var policy = Self.policy
        policy.dailyFetchBudget = 0
        let history = Self.history(.minimum)
        #expect(FetchScheduler.nextFetch(history, policy: policy, now: Self.t0) == nil)
        #expect(FetchScheduler.waits(history, policy: policy, now: Self.t0) == [.budget(until: .distantFuture)])
    }

    @Test("launches older than a day are pruned, so the history cannot grow without bound")
    func pruning() {
        var history = Self.history(.minimum)
        for hour in 0..<(24 * 10) { history.launched(at: Self.t0.addingTimeInterval(Double(hour) * 3600)) }
        #expect(history.recentLaunches.count == 24)
        for second in 0..<3000 { history.launched(at: Self.t0.addingTimeInterval(1e6 + Double(second))) }
        #expect(history.recentLaunches.count == FetchHistory.maximumRecentLaunches)
    }

    @Test("bad intervals are refused, naming why", arguments: [0.0, -5, .nan, .infinity])
    func badInterval(_ seconds: Double) {
        let problem = BackgroundFetchInterval.seconds(seconds).problem
        #expect(problem?.contains("positive number of seconds") == true)
        #expect(BackgroundFetchInterval.minimum.problem == nil)
        #expect(BackgroundFetchInterval.seconds(1).problem == nil)
    }

    @Test("waits is empty exactly when the next fetch is due")
    func waitsMatchNextFetch() {
        var policy = Self.policy
        policy.dailyFetchBudget = 4
        var history = Self.history(.seconds(1200))
        var now = Self.t0
        for step in 0..<500 {
            now = now.addingTimeInterval(377)
            let next = FetchScheduler.nextFetch(history, policy: policy, now: now)!
            let waits = FetchScheduler.waits(history, policy: policy, now: now)
            #expect(waits.isEmpty == (next <= now))
            #expect(waits.compactMap(\.until).max() ?? next == next)
            if waits.isEmpty {
                history.launched(at: now)
                history.record(step % 3 == 0 ? .newData : .noData, at: now)
            }
        }
    }
}
