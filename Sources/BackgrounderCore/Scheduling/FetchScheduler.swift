public import Foundation

/// When an app may next be woken or launched for background fetch: pure rules over its
/// ``FetchHistory`` and the ``SchedulingPolicy``.
///
/// The rules, in the order they apply:
/// 1. **Interval.** `.never` means no scheduled fetch. Otherwise the base interval is the
///    larger of the app's `.seconds` and the policy's ``SchedulingPolicy/minimumFetchInterval``
///    (`.minimum` is the policy's minimum): an app is never fetched sooner than that after its
///    last fetch. An app that has never fetched may fetch at once: it is due from when it set
///    its interval (``FetchHistory/intervalSetAt``), or from now if that is not known.
/// 2. **Backoff.** Each `.noData` or `.failed` in a row doubles the wait:
///    `base × 2^consecutiveEmpty`, capped at ``SchedulingPolicy/fetchBackoffCap`` (a base
///    interval above the cap is kept: the cap never makes an app fetch sooner than it asked).
///    `.newData` resets it.
/// 3. **Favour.** An app whose last fetch brought `.newData` (so its exponent is 0), or that the
///    person opened within ``SchedulingPolicy/favouredWithin``, waits only the base interval: its
///    backoff is removed while it is favoured. Someone who uses an app gets it fresh.
/// 4. **Daily budget.** At most ``SchedulingPolicy/dailyFetchBudget`` launches in any 24 hours;
///    when they are spent the next fetch waits until the oldest of them is a day old. A budget
///    of 0 means no scheduled fetch at all.
///
/// The next fetch is the latest of these moments. It is a fixed date (not "now + something"),
/// so the daemon's timer is not pushed back each time it reschedules.
public enum FetchScheduler {
    /// The base interval in seconds, or `nil` for `.never`.
    public static func baseInterval(_ interval: BackgroundFetchInterval, policy: SchedulingPolicy) -> TimeInterval? {
        let minimum = max(0, policy.minimumFetchInterval.seconds)
        switch interval {
        case .never: return nil
        case .minimum: return minimum
        case .seconds(let seconds):
            // A bad interval is refused where it enters; here it falls back to the minimum.
            return seconds.isFinite && seconds > 0 ? max(seconds, minimum) : minimum
        }
    }

    /// Whether the app is favoured now: its last result was `.newData`, or the person opened it
    /// within the policy's ``SchedulingPolicy/favouredWithin``.
    public static func isFavoured(_ history: FetchHistory, policy: SchedulingPolicy, now: Date) -> Bool {
        if history.lastResult == .newData { return true }
        guard let opened = history.lastOpenedAt else { return false }
        return now.timeIntervalSince(opened) < policy.favouredWithin.seconds
    }

    /// The wait after the last fetch in seconds (base interval with backoff, capped), or `nil`
    /// for `.never`.
    public static func spacing(_ history: FetchHistory, policy: SchedulingPolicy, now: Date) -> TimeInterval? {
        guard let base = baseInterval(history.interval, policy: policy) else { return nil }
        let exponent = isFavoured(history, policy: policy, now: now) ? 0 : max(0, history.consecutiveEmpty)
        let backedOff = base * pow(2, Double(exponent))
        return max(base, min(backedOff, max(0, policy.fetchBackoffCap.seconds)))
    }

    /// When the daily budget allows the next launch: `nil` if it allows one now,
    /// `.distantFuture` if the budget is 0.
    public static func budgetUntil(_ history: FetchHistory, policy: SchedulingPolicy, now: Date) -> Date? {
        guard policy.dailyFetchBudget > 0 else { return .distantFuture }
        let launches = history.launchesInLastDay(now: now)
        guard launches.count >= policy.dailyFetchBudget else { return nil }
        // Once this many have aged out, one fewer than the budget remain.
        return launches[launches.count - policy.dailyFetchBudget].addingTimeInterval(FetchHistory.day)
    }

    /// The earliest moment of the next fetch (in the past or now when it is due), or `nil` when
    /// fetch is off (`.never`, or a daily budget of 0).
    public static func nextFetch(_ history: FetchHistory, policy: SchedulingPolicy, now: Date) -> Date? {
        guard let spacing = spacing(history, policy: policy, now: now) else { return nil }
        // Never fetched: due since the interval was set (or now, if that is not known).
        var next = history.lastFetchAt.map { $0.addingTimeInterval(spacing) } ?? min(history.intervalSetAt ?? now, now)
        if let until = budgetUntil(history, policy: policy, now: now) {
            guard until != .distantFuture else { return nil }
            next = max(next, until)
        }
        return next
    }

    /// Every reason the next fetch is not now; empty when it is due.
    public static func waits(_ history: FetchHistory, policy: SchedulingPolicy, now: Date) -> [SchedulingWait] {
        guard let spacing = spacing(history, policy: policy, now: now) else { return [.never] }
        var waits: [SchedulingWait] = []
        if let last = history.lastFetchAt, last.addingTimeInterval(spacing) > now {
            waits.append(.backoff(until: last.addingTimeInterval(spacing)))
        }
        if let until = budgetUntil(history, policy: policy, now: now), until > now {
            waits.append(.budget(until: until))
        }
        return waits
    }
}
