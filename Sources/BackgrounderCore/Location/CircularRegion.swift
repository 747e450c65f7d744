/// A circle an app asks to be told about entering and leaving, as CLCircularRegion.
public struct CircularRegion: Sendable, Hashable, Codable {
    /// The app's name for the region, unique among its regions.
    public var identifier: String
    /// The centre.
    public var center: Coordinate
    /// Metres from the centre to the boundary.
    public var radius: Double
    /// Whether the app hears when the receiver enters.
    public var notifyOnEntry: Bool
    /// Whether the app hears when the receiver leaves.
    public var notifyOnExit: Bool

    /// Creates a region.
    /// - Parameters:
    ///   - identifier: The app's name for it.
    ///   - center: The centre.
    ///   - radius: Metres to the boundary.
    ///   - notifyOnEntry: Whether entering is notified.
    ///   - notifyOnExit: Whether leaving is notified.
    public init(
        identifier: String,
        center: Coordinate,
        radius: Double,
        notifyOnEntry: Bool = true,
        notifyOnExit: Bool = true
    ) {
        self.identifier = identifier
        self.center = center
        self.radius = radius
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
    }

    /// Whether a point lies within the circle, boundary included, with no allowance for
    /// uncertainty (``RegionMonitor/classify(_:at:)`` adds that).
    /// - Parameter coordinate: The point.
    /// - Returns: `true` when it is at most ``radius`` metres from the centre.
    public func contains(_ coordinate: Coordinate) -> Bool {
        center.distance(to: coordinate) <= radius
    }
}

/// CLRegionState.
public enum RegionState: String, Sendable, Hashable, Codable {
    /// Not known yet, or the fix cannot tell.
    case unknown
    /// Within the region.
    case inside
    /// Outside the region.
    case outside
}
