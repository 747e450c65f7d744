/// CLLocationManager's standard updates.
///
/// Decides, fix by fix, which fixes an app that called `startUpdatingLocation` hears: those
/// accurate enough for its `desiredAccuracy` and far enough from the last one it heard for its
/// `distanceFilter`. Time is the fixes' own, so a replayed log filters the same at any speed.
///
/// With `pausesLocationUpdatesAutomatically`, a device that stands still (every fix within
/// ``stationaryRadius`` of the middle of its stop) for its ``ActivityType``'s time pauses: the app
/// hears `didPause` and no fixes, and the daemon lets it be suspended. The first fix past the
/// radius resumes updates (`didResume`, then that fix), where iOS waits for the app to come
/// to the front: a recorder left on a table costs nothing, and picks the walk up by itself.
public struct StandardUpdateFilter: Sendable {
    /// A pause or its end.
    public enum PauseChange: Sendable, Hashable {
        case paused
        case resumed
    }

    /// Metres a fix may lie from the middle of the stop while the device stands still: a
    /// receiver on a table reports jitter of up to about 20 m, and multipath more (the
    /// project's stationary log stays well within it); a walker passes it in well under a
    /// minute.
    public static let stationaryRadius = 50.0

    /// What the app asked for, as CLLocationManager's properties.
    public struct Configuration: Sendable, Hashable, Codable {
        /// LocationAccuracy value; <= 0 accepts every fix.
        public var desiredAccuracy: Double
        /// Metres the receiver must move from the last delivered fix; nil = every fix (kCLDistanceFilterNone).
        public var distanceFilter: Double?
        /// Seconds (fix time) after which a fix worse than desiredAccuracy is delivered anyway, so an app is never starved.
        public var staleAfter: Double
        /// `pausesLocationUpdatesAutomatically`; absent (a client before protocol 1.13) is off.
        public var pausesAutomatically: Bool?
        /// `activityType`: how long standing still pauses updates; absent is ``ActivityType/other``.
        public var activityType: ActivityType?

        /// Creates a configuration; the defaults are CLLocationManager's.
        /// - Parameters:
        ///   - desiredAccuracy: A ``LocationAccuracy`` value, in metres.
        ///   - distanceFilter: Metres between deliveries, or `nil` (or a value <= 0) for every fix.
        ///   - staleAfter: Seconds of fix time an app waits at most for an accurate enough fix.
        ///   - pausesAutomatically: Whether standing still pauses updates.
        ///   - activityType: What the updates are for, which sets how long.
        public init(
            desiredAccuracy: Double = LocationAccuracy.best, distanceFilter: Double? = nil, staleAfter: Double = 10,
            pausesAutomatically: Bool = false, activityType: ActivityType = .other
        ) {
            self.desiredAccuracy = desiredAccuracy
            self.distanceFilter = distanceFilter
            self.staleAfter = staleAfter
            self.pausesAutomatically = pausesAutomatically ? true : nil
            self.activityType = activityType == .other ? nil : activityType
        }

        /// Seconds standing still before updates pause, or `nil` when they never do.
        public var pauseAfter: Double? {
            pausesAutomatically == true ? (activityType ?? .other).pauseAfter : nil
        }
    }

    /// What the app asked for; changing it applies from the next fix.
    public var configuration: Configuration

    /// The last fix delivered, if any.
    public private(set) var lastDelivered: Location?

    /// Fix time from which the app has been waiting: its last delivery, or the first fix
    /// offered when nothing was delivered yet.
    private var waitingSince: Double?
    /// The stop: its first fix (since when, in fix time) and the running middle of its fixes.
    private var stop: (since: Double, latitudeSum: Double, longitudeSum: Double, count: Double)?
    /// Whether updates are paused for standing still.
    public private(set) var isPaused = false

    /// Creates a filter that has delivered nothing.
    /// - Parameter configuration: What the app asked for.
    public init(_ configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    /// Whether the app should hear this fix (updates lastDelivered when true).
    /// - Parameter location: The next fix, in the order the receiver produced them.
    /// - Returns: `true` when the fix passes the accuracy and distance rules.
    public mutating func offer(_ location: Location) -> Bool {
        offerNoting(location).passed
    }

    /// ``offer(_:)``, and whether this fix paused or resumed updates: a resuming fix is
    /// delivered after the resume, whatever the distance filter says (the app hears where).
    public mutating func offerNoting(_ location: Location) -> (passed: Bool, pause: PauseChange?) {
        guard location.isUsable else { return (false, nil) }
        let change = notePause(location)
        if isPaused { return (false, change) }
        if change == .resumed {
            lastDelivered = location
            waitingSince = location.timestamp
            return (true, change)
        }
        return (passesFilters(location), change)
    }

    /// Moves the stop on, or pauses or resumes, for one usable fix.
    private mutating func notePause(_ location: Location) -> PauseChange? {
        guard let pauseAfter = configuration.pauseAfter else {
            stop = nil
            if isPaused {
                isPaused = false
                return .resumed
            }
            return nil
        }
        let point = location.coordinate
        guard let stop, location.timestamp >= stop.since,
            Coordinate(latitude: stop.latitudeSum / stop.count, longitude: stop.longitudeSum / stop.count)
                .distance(to: point) <= Self.stationaryRadius
        else {
            // Moving (or the clock went back): a new stop may start here.
            self.stop = (location.timestamp, point.latitude, point.longitude, 1)
            guard isPaused else { return nil }
            isPaused = false
            return .resumed
        }
        self.stop = (stop.since, stop.latitudeSum + point.latitude, stop.longitudeSum + point.longitude, stop.count + 1)
        guard !isPaused, location.timestamp - stop.since >= pauseAfter else { return nil }
        isPaused = true
        return .paused
    }

    private mutating func passesFilters(_ location: Location) -> Bool {
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
