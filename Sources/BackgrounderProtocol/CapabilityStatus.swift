/// One capability's row in `CAPABILITIES` (`bgctl status`): what it holds now, in a line for a
/// person (``summary``) and counted for scripts (``counts``).
public struct CapabilityStatus: Sendable, Hashable, Codable {
    /// The capability: `location`, `audio`, `scheduling`, `transfers`, `resources`,
    /// `notifications`, `sharing`.
    public var name: String
    /// What it holds and does now, in one line.
    public var summary: String
    /// The same, counted (`regions`, `streams`, `running`), for scripts.
    public var counts: [String: Int]
    /// When it next wakes the daemon by itself (its deadline on the core's one timer), in
    /// seconds since 1970; `nil` when it waits only for events.
    public var nextWake: Double?

    /// Creates a capability's status.
    public init(name: String, summary: String, counts: [String: Int] = [:], nextWake: Double? = nil) {
        self.name = name
        self.summary = summary
        self.counts = counts
        self.nextWake = nextWake
    }
}

/// `CAPABILITIES` reply: every capability the daemon runs, in the order it runs them.
public struct CapabilityStatusList: Sendable, Hashable, Codable {
    /// One row per capability.
    public var capabilities: [CapabilityStatus]

    /// Creates a list.
    public init(capabilities: [CapabilityStatus]) {
        self.capabilities = capabilities
    }
}
