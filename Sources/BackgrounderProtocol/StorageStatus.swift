/// How the daemon's state database is doing, in `STATUS` (`storage`).
public struct StorageStatus: Sendable, Hashable, Codable {
    /// Whether the last write worked.
    public enum State: String, Sendable, Hashable, Codable {
        /// The last write committed.
        case ok
        /// The last write failed (`lastError` says why); events meanwhile are not stored.
        case failing
    }

    /// Whether the last write worked.
    public var state: State
    /// The last write failure since the daemon started, also after writes work again.
    public var lastError: String?
    /// When it happened, in seconds since 1970.
    public var lastErrorAt: Double?
    /// Location events that could not be queued since the daemon started (their apps were told).
    public var unstoredEvents: Int
    /// Bytes kept on the state directory's file system for the daemon's own commits: 0 while
    /// given up (apps filled the disk), absent from daemons without a reserve.
    public var reserveBytes: Int?
    /// How often the reserve was given up to commit on a full disk since the daemon started.
    public var reserveReleases: Int?
    /// Why there is no reserve, or that it was given up.
    public var reserveNote: String?

    /// Creates a storage status.
    public init(state: State, lastError: String? = nil, lastErrorAt: Double? = nil, unstoredEvents: Int = 0) {
        self.state = state
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.unstoredEvents = unstoredEvents
    }
}
