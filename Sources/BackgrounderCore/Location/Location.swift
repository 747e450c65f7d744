/// A latitude and longitude in degrees (WGS 84), as CLLocationCoordinate2D.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Degrees north of the equator, -90...90.
    public var latitude: Double
    /// Degrees east of Greenwich, -180...180.
    public var longitude: Double

    /// Creates a coordinate.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// One position fix, as CLLocation: where, how sure, and when (the receiver's fix time,
/// not the time it was read, so intervals survive replay at any speed).
public struct Location: Sendable, Hashable, Codable {
    /// How many dimensions the fix has.
    public enum FixMode: String, Sendable, Hashable, Codable {
        case noFix, twoDimensional = "2d", threeDimensional = "3d"
    }

    /// The position.
    public var coordinate: Coordinate
    /// Metres above mean sea level, when the fix is 3D.
    public var altitude: Double?
    /// Radius of uncertainty in metres, when the receiver estimates it.
    public var horizontalAccuracy: Double?
    /// Uncertainty of the altitude in metres.
    public var verticalAccuracy: Double?
    /// Metres per second over ground.
    public var speed: Double?
    /// Degrees clockwise from true north.
    public var course: Double?
    /// Seconds since 1970-01-01 UTC of the fix.
    public var timestamp: Double
    /// 2D or 3D.
    public var fixMode: FixMode

    /// Creates a location.
    public init(
        coordinate: Coordinate,
        altitude: Double? = nil,
        horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        timestamp: Double,
        fixMode: FixMode
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
        self.fixMode = fixMode
    }
}
