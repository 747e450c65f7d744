/// startMonitoringSignificantLocationChanges: a fix only after a real move, no more often than an interval.
///
/// Two things stand between a fix and an event. Plausibility: a fix that would mean moving
/// faster than ``Configuration/maximumSpeed`` from the last plausible one is an outlier (a
/// multipath jump), unless several such fixes agree with each other, which means the receiver
/// really is elsewhere (gpsd restarted in another place, or fixes were missing for a while).
/// Persistence: a move counts only when ``Configuration/agreement`` plausible fixes in a row
/// are beyond ``Configuration/minimumDistance`` from the anchor, so jitter never adds up to one.
public struct SignificantChangeFilter: Sendable {
    /// The thresholds; the defaults approximate what iOS does on cell and Wi-Fi positioning.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Metres from the anchor that count as a move (iOS: about 500 m).
        public var minimumDistance: Double
        /// Seconds of fix time between two events at least (iOS: about 5 minutes).
        public var minimumInterval: Double
        /// Fixes with a larger horizontal accuracy, in metres, are ignored; a fix without one
        /// counts as accurate enough.
        public var maximumAccuracy: Double
        /// Metres per second; a fix implying a faster move from the last plausible fix is an outlier.
        public var maximumSpeed: Double
        /// Consecutive plausible fixes beyond ``minimumDistance`` before a move counts, and
        /// consecutive outliers that must agree before they are believed.
        public var agreement: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - minimumDistance: Metres from the anchor that count as a move.
        ///   - minimumInterval: Seconds of fix time between events at least.
        ///   - maximumAccuracy: Metres; less accurate fixes are ignored.
        ///   - maximumSpeed: Metres per second beyond which a jump is an outlier.
        ///   - agreement: Consecutive fixes that must agree (values below 1 count as 1).
        public init(
            minimumDistance: Double = 500,
            minimumInterval: Double = 300,
            maximumAccuracy: Double = 100,
            maximumSpeed: Double = 100,
            agreement: Int = 3
        ) {
            self.minimumDistance = minimumDistance
            self.minimumInterval = minimumInterval
            self.maximumAccuracy = maximumAccuracy
            self.maximumSpeed = maximumSpeed
            self.agreement = agreement
        }
    }

    /// The thresholds in force.
    public let configuration: Configuration

    /// The fix of the last significant change (the position moves are measured from).
    public private(set) var anchor: Location? {
        didSet { anchorPoint = anchor.map { GeoPoint($0.coordinate) } }
    }

    /// A fix with its trigonometry done, as every fix is measured against the next.
    private struct Fix {
        var location: Location
        var point: GeoPoint
    }

    private var anchorPoint: GeoPoint?
    /// The last fix believed, which the next one's speed is judged from.
    private var lastPlausible: Fix?
    /// Consecutive outliers that agree with each other, oldest first.
    private var suspects: [Fix] = []
    /// Consecutive plausible fixes beyond the minimum distance from the anchor.
    private var fixesAway = 0

    private var agreement: Int { max(1, configuration.agreement) }

    /// Creates a filter.
    /// - Parameters:
    ///   - configuration: The thresholds.
    ///   - anchor: The anchor restored from storage, so a restart does not count as a change;
    ///     one without a usable position or time is dropped.
    public init(_ configuration: Configuration = .init(), anchor: Location? = nil) {
        self.configuration = configuration
        self.anchor = anchor.flatMap { $0.isUsable ? $0 : nil }
        anchorPoint = self.anchor.map { GeoPoint($0.coordinate) }
    }

    /// Whether this fix is a significant change. With no anchor, the first plausible fix is one (iOS delivers a fix when monitoring starts) and becomes the anchor.
    /// - Parameter location: The next fix, in the order the receiver produced them.
    /// - Returns: `true` when the app should hear about this fix; it is then the new ``anchor``.
    public mutating func offer(_ location: Location) -> Bool {
        guard location.isUsable, isAccurateEnough(location) else { return false }
        let fix = Fix(location: location, point: GeoPoint(location.coordinate))
        if let lastPlausible, !isConsistent(lastPlausible, fix) {
            if let last = suspects.last, isConsistent(last, fix) {
                suspects.append(fix)
            } else {
                suspects = [fix]
            }
            guard suspects.count >= agreement else { return false }
            // They agree among themselves: the receiver is there. Take them in order, as if
            // they had been plausible all along.
            let believed = suspects
            suspects.removeAll(keepingCapacity: true)
            var fired = false
            for suspect in believed where considerPlausible(suspect) {
                fired = true
            }
            return fired
        }
        suspects.removeAll(keepingCapacity: true)
        return considerPlausible(fix)
    }

    /// Counts a believed fix toward a move; fires when the move is confirmed and the interval
    /// since the anchor has passed.
    private mutating func considerPlausible(_ fix: Fix) -> Bool {
        lastPlausible = fix
        let location = fix.location
        guard let anchor, let anchorPoint else {
            self.anchor = location
            return true
        }
        guard fix.point.isAtLeast(configuration.minimumDistance, from: anchorPoint) else {
            fixesAway = 0
            return false
        }
        fixesAway += 1
        // The magnitude, so a clock that went back (a replay, a receiver restarted with another
        // date) does not hold events back until it catches up again.
        let elapsed = abs(location.timestamp - anchor.timestamp)
        guard fixesAway >= agreement, elapsed >= configuration.minimumInterval else { return false }
        self.anchor = location
        fixesAway = 0
        return true
    }

    private func isAccurateEnough(_ location: Location) -> Bool {
        guard let accuracy = location.horizontalAccuracy else { return true }
        // Also refuses NaN and CoreLocation's negative "invalid".
        return accuracy >= 0 && accuracy <= configuration.maximumAccuracy
    }

    /// Whether going from one fix to the other is possible at the maximum speed, giving each
    /// fix the benefit of its own uncertainty.
    private func isConsistent(_ from: Fix, _ to: Fix) -> Bool {
        let slack = (from.location.horizontalAccuracy ?? 0) + (to.location.horizontalAccuracy ?? 0)
        // Fixes a second apart or less (or out of order) still allow a second's travel.
        let seconds = max(1, abs(to.location.timestamp - from.location.timestamp))
        return to.point.isWithin(configuration.maximumSpeed * seconds + slack, of: from.point)
    }
}
