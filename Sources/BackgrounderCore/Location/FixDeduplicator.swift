/// gpsd 3.22 sends one TPV per NMEA sentence, so several per fix, all with the same fix time.
/// Accepts the first report of each fix time and drops a report whose fix time equals one of the
/// last few accepted (keep ~4). Time going backwards is NOT dropped (a restarted gpsd or replay).
///
/// Remembering a few times rather than only the last covers a receiver that interleaves the
/// sentences of two cycles; remembering only a few lets a replayed log through again.
public struct FixDeduplicator: Sendable {
    /// How many accepted fix times are remembered.
    static let memory = 4

    /// Fix times accepted most recently, used as a ring once full.
    private var recent: [Double] = []
    /// Where the next accepted time goes once the ring is full.
    private var next = 0

    /// Creates a deduplicator that has seen nothing.
    public init() {}

    /// Whether this report is the first of its fix.
    /// - Parameter location: A report as gpsd sent it.
    /// - Returns: `false` when a report with the same fix time was accepted lately.
    public mutating func accept(_ location: Location) -> Bool {
        let time = location.timestamp
        // NaN equals nothing, so a report without a usable time always passes; the filters
        // after this one refuse it.
        if recent.contains(time) { return false }
        if recent.count < Self.memory {
            recent.append(time)
        } else {
            recent[next] = time
            next = (next + 1) % Self.memory
        }
        return true
    }

    /// Forgets every fix time, as after reconnecting to gpsd.
    public mutating func reset() {
        recent.removeAll(keepingCapacity: true)
        next = 0
    }
}
