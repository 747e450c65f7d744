/// When to try a server again after it could not be reached.
///
/// The waits double from `first` up to `limit`, for a server that is starting or restarting.
/// After that, a server whose socket file the daemon watches is tried again only when that
/// file appears (a server that starts creates it), so an absent server costs no wakeup at all;
/// one it cannot watch (TCP, an abstract socket) is tried every `limit`.
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

    /// The wait before the next attempt, and counts this failure.
    /// - Parameter socketWatched: Whether the server's socket file is watched, so that its
    ///   appearance starts the next attempt.
    /// - Returns: How long to wait, or `nil` to wait only for the socket to appear.
    public mutating func next(socketWatched: Bool) -> Duration? {
        if current > limit { return socketWatched ? nil : limit }
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
