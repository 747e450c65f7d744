/// An app's recent crashes, and whether they make a crash loop that refuses its next launch.
///
/// As systemd's `StartLimitBurst` within `StartLimitIntervalSec`: `limit` crashes within
/// `window` throttle launches until the oldest of them leaves the window. Only crashes count; a
/// clean exit or a termination the system asked for does not. Times are the caller's clock
/// (the daemon's monotonic time since it started), so the rule is proven with any times.
public struct CrashLoop: Sendable, Equatable {
    /// When the crashes still within the window happened, oldest first.
    public private(set) var crashes: [Duration] = []

    /// No crashes yet.
    public init() {}

    /// Records a crash at `time`.
    public mutating func crashed(at time: Duration) {
        crashes.append(time)
    }

    /// Whether a launch at `now` is allowed: forgets the crashes that left the window, then
    /// returns `nil` to allow it, or the time until which launches are refused.
    /// - Parameters:
    ///   - now: The time of the launch.
    ///   - limit: Crashes within the window that make a loop.
    ///   - window: How far back crashes count.
    public mutating func throttledUntil(launchingAt now: Duration, limit: Int, window: Duration) -> Duration? {
        crashes.removeAll { now - $0 > window }
        guard crashes.count >= limit, let oldest = crashes.first else { return nil }
        return oldest + window
    }
}
