/// A change of a region's state that a fix confirmed.
public struct RegionTransition: Sendable, Hashable {
    /// What an app is told, as `locationManager(_:didEnterRegion:)` and `didExitRegion`.
    public enum Notification: String, Sendable, Hashable, Codable {
        /// The receiver entered the region.
        case enter
        /// The receiver left the region.
        case exit
    }

    /// Whose the region is: an app's own, or its notification request's.
    public var owner: RegionOwner
    /// The region, as the app registered it.
    public var region: CircularRegion
    /// The state before.
    public var from: RegionState
    /// The state now.
    public var to: RegionState
    /// The fix that confirmed it.
    public var location: Location
    /// Fix time of the first fix that qualified for the new state (the dwell starts there).
    public var qualifiedAt: Double

    /// Creates a transition.
    public init(
        owner: RegionOwner,
        region: CircularRegion,
        from: RegionState,
        to: RegionState,
        location: Location,
        qualifiedAt: Double
    ) {
        self.owner = owner
        self.region = region
        self.from = from
        self.to = to
        self.location = location
        self.qualifiedAt = qualifiedAt
    }

    /// The notification an app hears: .enter for outside->inside when notifyOnEntry, .exit for inside->outside when notifyOnExit, nil otherwise (from .unknown nothing is notified, as iOS: initial state only on requestState).
    public var notification: Notification? {
        switch (from, to) {
        case (.outside, .inside): region.notifyOnEntry ? .enter : nil
        case (.inside, .outside): region.notifyOnExit ? .exit : nil
        default: nil
        }
    }
}
