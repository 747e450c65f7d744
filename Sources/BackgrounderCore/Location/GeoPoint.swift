#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A coordinate with the trigonometry of its latitude done once, so a fix compared with
/// thousands of region centres pays for its own cosine once and theirs never.
struct GeoPoint: Sendable, Hashable {
    var latitude: Double
    var longitude: Double
    var latitudeRadians: Double
    var cosLatitude: Double

    init(_ coordinate: Coordinate) {
        latitude = coordinate.latitude
        longitude = coordinate.longitude
        latitudeRadians = coordinate.latitude * Earth.radiansPerDegree
        cosLatitude = cos(latitudeRadians)
    }

    /// Haversine distance in metres. ``Coordinate/distance(to:)`` is this, so the fast path of
    /// the region monitor and a plain distance give bit-identical answers.
    func distance(to other: GeoPoint) -> Double {
        let halfLatitude = (other.latitudeRadians - latitudeRadians) / 2
        // sin² of half the longitude difference repeats every 360°, so no wrapping is needed.
        let halfLongitude = (other.longitude - longitude) * Earth.radiansPerDegree / 2
        let sinLatitude = sin(halfLatitude)
        let sinLongitude = sin(halfLongitude)
        let a = sinLatitude * sinLatitude + cosLatitude * other.cosLatitude * sinLongitude * sinLongitude
        return 2 * Earth.meanRadius * asin(min(1, a.squareRoot()))
    }

    /// Where this point lies relative to a circle around `center`: `.inside` when the distance
    /// is at most `inner`, `.outside` when at least `outer`, `.unknown` in between.
    ///
    /// Most calls are decided by bounds on the haversine that need no trigonometry, for the
    /// centres within about 1200 km; they only decide when the margin is a billionth of the
    /// distance, far beyond rounding, so the answer is always the one ``distance(to:)`` gives.
    func classify(around center: GeoPoint, inner: Double, outer: Double) -> RegionState {
        let deltaLatitude = latitudeRadians - center.latitudeRadians
        var deltaDegrees = longitude - center.longitude
        if deltaDegrees > 180 {
            deltaDegrees -= 360
        } else if deltaDegrees < -180 {
            deltaDegrees += 360
        }
        let deltaLongitude = deltaDegrees * Earth.radiansPerDegree
        if abs(deltaLatitude) < 0.2 && abs(deltaLongitude) < 0.2 {
            // With x = half a difference: x(1 - x²/6) <= sin x <= x, and y <= asin y <= y/√(1-y²),
            // so lower <= distance² <= upper.
            let latitudeSquared = deltaLatitude * deltaLatitude / 4
            let longitudeSquared = deltaLongitude * deltaLongitude / 4
            let cosines = cosLatitude * center.cosLatitude
            let latitudeFactor = 1 - latitudeSquared * (1.0 / 6)
            let longitudeFactor = 1 - longitudeSquared * (1.0 / 6)
            let lowerA =
                latitudeSquared * latitudeFactor * latitudeFactor
                + cosines * longitudeSquared * longitudeFactor * longitudeFactor
            let diameterSquared = 4 * Earth.meanRadius * Earth.meanRadius
            let lower = diameterSquared * lowerA
            if lower > outer * outer * (1 + 1e-9) {
                return .outside
            }
            let upperA = latitudeSquared + cosines * longitudeSquared
            let upper = upperA < 0.5 ? diameterSquared * upperA / (1 - upperA) : .infinity
            if upper < outer * outer * (1 - 1e-9) {
                // Certainly short of the outer threshold; where is it against the inner one?
                if inner < 0 || (inner > 0 && lower > inner * inner * (1 + 1e-9)) {
                    return .unknown
                }
                if inner > 0 && upper < inner * inner * (1 - 1e-9) {
                    return .inside
                }
            }
        }
        let distance = center.distance(to: self)
        if distance <= inner { return .inside }
        if distance >= outer { return .outside }
        return .unknown
    }

    /// Whether this point is at most `limit` metres from `other`, decided by the same bounds.
    func isWithin(_ limit: Double, of other: GeoPoint) -> Bool {
        classify(around: other, inner: limit, outer: .infinity) == .inside
    }

    /// Whether this point is at least `distance` metres from `other`, decided by the same bounds.
    func isAtLeast(_ distance: Double, from other: GeoPoint) -> Bool {
        classify(around: other, inner: -1, outer: distance) == .outside
    }
}
