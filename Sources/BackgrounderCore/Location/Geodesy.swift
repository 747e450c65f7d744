#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sphere every distance is measured on.
enum Earth {
    /// Mean Earth radius (IUGG) in metres, the one the test fixtures are generated with, so
    /// ground truth and filters agree to the millimetre.
    static let meanRadius = 6_371_008.8
    static let radiansPerDegree = Double.pi / 180
}

extension Coordinate {
    /// Great-circle distance in metres (haversine, mean Earth radius 6_371_008.8 m).
    ///
    /// A sphere is off the ellipsoid by up to 0.5 %, far less than a fix's uncertainty; what
    /// matters is that every filter measures the same way.
    /// - Parameter other: The other end.
    /// - Returns: Metres along the surface, 0 up to about 20_015_000.
    public func distance(to other: Coordinate) -> Double {
        GeoPoint(self).distance(to: GeoPoint(other))
    }

    /// Whether latitude is in -90...90 and longitude in -180...180 and both finite.
    public var isValid: Bool {
        // A closed range of finite bounds contains neither NaN nor an infinity.
        (-90.0...90.0).contains(latitude) && (-180.0...180.0).contains(longitude)
    }
}

extension Location {
    /// Whether the fix can be measured at all: a real position at a real time.
    var isUsable: Bool { coordinate.isValid && timestamp.isFinite }
}
