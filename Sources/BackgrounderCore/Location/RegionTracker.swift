/// One region's state and the candidate for its next one: the hysteresis in time.
///
/// The hysteresis in space (the band around the boundary) is the caller's: it passes
/// `.unknown` for a fix in the band, which changes nothing here.
struct RegionTracker: Sendable, Hashable {
    /// The confirmed state.
    var state: RegionState
    /// The state the recent fixes point to, if different from ``state``.
    var candidate: RegionState?
    /// Consecutive fixes that agreed with the candidate.
    var agreeing: Int32 = 0
    /// Fix time of the first of them.
    var qualifiedAt: Double = 0

    init(state: RegionState) {
        self.state = state
    }

    /// Whether the region must be looked at on every fix, even far from it: a receiver inside
    /// (or not yet placed) could leave by a jump, and a pending candidate could be cancelled.
    var needsAttention: Bool { state != .outside || candidate != nil }

    /// Takes one fix's classification into account.
    /// - Returns: The fix time the new state qualified at, when this fix confirms a transition
    ///   (``state`` is then the new state).
    mutating func observe(
        _ observed: RegionState,
        at time: Double,
        agreement: Int,
        dwell: Double
    ) -> Double? {
        guard observed != .unknown else { return nil }
        guard observed != state else {
            candidate = nil
            return nil
        }
        // A clock that went back starts the dwell again rather than stretching it.
        if candidate != observed || time < qualifiedAt {
            candidate = observed
            agreeing = 0
            qualifiedAt = time
        }
        // Counting stops at what is needed, so a long dwell cannot overflow it.
        if Int(agreeing) < agreement { agreeing += 1 }
        // The first placement needs agreement but no dwell: iOS reports a region's initial
        // state as soon as it knows it.
        guard Int(agreeing) >= agreement, state == .unknown || time - qualifiedAt >= dwell else { return nil }
        state = observed
        candidate = nil
        return qualifiedAt
    }
}
