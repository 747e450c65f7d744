public import Foundation

/// What the scheduler remembers about one app's background fetches; persisted as JSON.
///
/// Decoding is lenient: a field missing from an older record takes its default, so records
/// written before a field was added still load.
public struct FetchHistory: Sendable, Hashable, Codable {
    /// The window over which ``recentLaunches`` are kept and the daily budget is counted.
    public static let day: TimeInterval = 86_400
    /// A bound on ``recentLaunches`` whatever the budget, so a record never grows without limit
    /// (launches by `bgctl simulate` are not budgeted).
    public static let maximumRecentLaunches = 1024
    /// A bound on ``consecutiveEmpty``: far past any cap, and no overflow.
    public static let maximumConsecutiveEmpty = 64

    /// The interval the app asked for (`setMinimumBackgroundFetchInterval`).
    public var interval: BackgroundFetchInterval
    /// When the app was last launched or woken for a fetch or app-refresh task.
    public var lastFetchAt: Date?
    /// What the last one brought.
    public var lastResult: BackgroundFetchResult?
    /// `.noData` or `.failed` results since the last `.newData`: the backoff's exponent.
    public var consecutiveEmpty: Int = 0
    /// Launches within the last 24 hours (older ones are pruned at each launch).
    public var recentLaunches: [Date] = []
    /// When the person last brought the app to the front.
    public var lastOpenedAt: Date?
    /// When the app last changed its interval (``setInterval(_:at:)``): an app that has never
    /// fetched is due from then, a fixed moment, so rescheduling does not keep moving it.
    public var intervalSetAt: Date?

    /// A history with no fetch yet.
    public init(interval: BackgroundFetchInterval = .never) { self.interval = interval }

    /// The app asked for `interval` at `date` (`setMinimumBackgroundFetchInterval`). Asking
    /// again for the same interval, as apps do at every launch, changes nothing.
    public mutating func setInterval(_ interval: BackgroundFetchInterval, at date: Date) {
        if interval != self.interval || intervalSetAt == nil { intervalSetAt = date }
        self.interval = interval
    }

    /// A fetch (or app-refresh) window closed with `result`.
    public mutating func record(_ result: BackgroundFetchResult, at date: Date) {
        lastResult = result
        consecutiveEmpty = result == .newData ? 0 : min(consecutiveEmpty + 1, Self.maximumConsecutiveEmpty)
    }

    /// The app was launched or woken for a fetch at `date`: it counts against the daily budget,
    /// and the next interval is counted from here.
    public mutating func launched(at date: Date) {
        lastFetchAt = date
        recentLaunches.append(date)
        prune(now: date)
    }

    /// The person opened the app at `date`: it is favoured for ``SchedulingPolicy/favouredWithin``.
    public mutating func opened(at date: Date) {
        lastOpenedAt = date
    }

    /// Drops launches older than a day, and the oldest beyond ``maximumRecentLaunches``.
    public mutating func prune(now: Date) {
        recentLaunches.removeAll { now.timeIntervalSince($0) >= Self.day }
        if recentLaunches.count > Self.maximumRecentLaunches {
            recentLaunches.sort()
            recentLaunches.removeFirst(recentLaunches.count - Self.maximumRecentLaunches)
        }
    }

    /// Brings every moment later than `now` back to `now`: the wall clock was set back (an NTP
    /// step, a clock that ran ahead). Without it, a last fetch "in the future" would postpone
    /// the next one by as long as the clock went back, and launches "in the future" would
    /// hold the daily budget as long; with it, the app waits one interval (one day for the
    /// budget) from the step, whatever its size. A clock set forward needs nothing: the
    /// fetch is due once, and old launches leave the budget.
    /// - Returns: Whether anything changed.
    @discardableResult
    public mutating func clampFuture(to now: Date) -> Bool {
        let before = self
        lastFetchAt = lastFetchAt.map { min($0, now) }
        lastOpenedAt = lastOpenedAt.map { min($0, now) }
        intervalSetAt = intervalSetAt.map { min($0, now) }
        recentLaunches = recentLaunches.map { min($0, now) }
        return self != before
    }

    /// Launches in the 24 hours before `now`, oldest first.
    public func launchesInLastDay(now: Date) -> [Date] {
        recentLaunches.filter { now.timeIntervalSince($0) < Self.day }.sorted()
    }

    private enum CodingKeys: String, CodingKey {
        case interval, lastFetchAt, lastResult, consecutiveEmpty, recentLaunches, lastOpenedAt, intervalSetAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        interval = try container.decodeIfPresent(BackgroundFetchInterval.self, forKey: .interval) ?? .never
        lastFetchAt = try container.decodeIfPresent(Date.self, forKey: .lastFetchAt)
        lastResult = try container.decodeIfPresent(BackgroundFetchResult.self, forKey: .lastResult)
        consecutiveEmpty = max(0, try container.decodeIfPresent(Int.self, forKey: .consecutiveEmpty) ?? 0)
        recentLaunches = try container.decodeIfPresent([Date].self, forKey: .recentLaunches) ?? []
        lastOpenedAt = try container.decodeIfPresent(Date.self, forKey: .lastOpenedAt)
        intervalSetAt = try container.decodeIfPresent(Date.self, forKey: .intervalSetAt)
    }
}
