/// CLLocationManager's standard updates.
///
/// Decides, fix by fix, which fixes an app that called `startUpdatingLocation` hears: those
/// accurate enough for its `desiredAccuracy` and far enough from the last one it heard for its
/// `distanceFilter`. Time is the fixes' own, so a replayed log filters the same at any speed.
public struct StandardUpdateFilter: Sendable {
    /// What the app asked for, as CLLocationManager's properties.
    public struct Configuration: Sendable, Hashable, Codable {
        /// LocationAccuracy value; <= 0 accepts every fix.
        public var desiredAccuracy: Double
        /// Metres the receiver must move from the last delivered fix; nil = every fix (kCLDistanceFilterNone).
        public var distanceFilter: Double?
        /// Seconds (fix time) after which a fix worse than desiredAccuracy is delivered anyway, so an app is never starved.
        public var staleAfter: Double

        /// Creates a configuration; the defaults are CLLocationManager's.
        /// - Parameters:
        ///   - desiredAccuracy: A ``LocationAccuracy`` value, in metres.
        ///   - distanceFilter: Metres between deliveries, or `nil` (or a value <= 0) for every fix.
        ///   - staleAfter: Seconds of fix time an app waits at most for an accurate enough fix.
        public init(
            desiredAccuracy: Double = LocationAccuracy.best, distanceFilter: Double? = nil, staleAfter: Double = 10
        ) {
            self.desiredAccuracy = desiredAccuracy
            self.distanceFilter = distanceFilter
            self.staleAfter = staleAfter
        }
    }

    /// What the app asked for; changing it applies from the next fix.
    public var configuration: Configuration

    /// The last fix delivered, if any.
    public private(set) var lastDelivered: Location?

    /// Fix time from which the app has been waiting: its last delivery, or the first fix
    /// offered when nothing was delivered yet.
    private var waitingSince: Double?

    /// Creates a filter that has delivered nothing.
    /// - Parameter configuration: What the app asked for.
    public init(_ configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Whether the app should hear this fix (updates lastDelivered when true).
    /// - Parameter location: The next fix, in the order the receiver produced them.
    /// - Returns: `true` when the fix passes the accuracy and distance rules.
    public mutating func offer(_ location: Location) -> Bool {
        guard location.isUsable else { return false }
        // Time going backwards means a restarted receiver or a replay: the wait starts again
        // rather than lasting until the clock catches up.
        let since = min(waitingSince ?? location.timestamp, location.timestamp)
        waitingSince = since
        let waited = location.timestamp - since
        guard isAccurateEnough(location) || waited >= configuration.staleAfter else { return false }
        if let distanceFilter = configuration.distanceFilter, distanceFilter > 0, let last = lastDelivered,
            last.coordinate.distance(to: location.coordinate) < distanceFilter
        {
            return false
        }
        lastDelivered = location
        waitingSince = location.timestamp
        return true
    }

    private func isAccurateEnough(_ location: Location) -> Bool {
        let desired = configuration.desiredAccuracy
        guard desired > 0 else { return true }
        // A receiver that gives no estimate is trusted, as CoreLocation trusts its own fixes;
        // a negative or NaN estimate (CoreLocation's "invalid") is not.
        guard let accuracy = location.horizontalAccuracy else { return true }
        return accuracy >= 0 && accuracy <= desired
    }
}
