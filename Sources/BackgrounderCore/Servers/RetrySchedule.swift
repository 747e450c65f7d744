/// When to try a server again after it could not be reached.
///
/// A server whose socket file is absent and watched is tried again only when that file
/// appears (a server that starts or restarts creates it), so an absent server costs no wakeup
/// at all. Otherwise the waits double from `first` up to `limit`, for a server that is
/// starting (bound, not yet listening) or a stale socket file; one the daemon cannot watch
/// (TCP, an abstract socket) is then tried every `limit`.
/// (docs/decisions/0020-idle-wakeups.md)
public struct RetrySchedule: Sendable, Equatable {
    public let first: Duration
    public let limit: Duration
    private var current: Duration

    public init(first: Duration, limit: Duration) {
        precondition(first > .zero && limit >= first, "a retry schedule needs 0 < first <= limit")
        self.first = first
        self.limit = limit
        current = first
    }

    /// The wait before the next attempt; a timed one counts this failure (the next doubles).
    /// - Parameter socketWatched: Whether the server's socket file is absent and watched, so
    ///   that its appearance starts the next attempt.
    /// - Returns: How long to wait, or `nil` to wait only for the socket to appear.
    public mutating func next(socketWatched: Bool) -> Duration? {
        // Trying again before the file is there is bound to fail: a wakeup for nothing (the
        // first version did, 1 to 16 s for D-Bus, five wakeups after every start without a
        // system bus).
        if socketWatched { return nil }
        if current > limit { return limit }
        defer { current = current * 2 }
        return current
    }

    /// Starts again from `first`: the server was reached, or its socket appeared.
    public mutating func reset() { current = first }
}

extension RetrySchedule {
    /// The wait used when a socket that was to be watched cannot be (no inotify instance left).
    public static let unwatchedFallback: Duration = .seconds(60)
}
