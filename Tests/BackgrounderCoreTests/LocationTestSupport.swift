import BackgrounderCore
import BackgrounderTestSupport
import Foundation

/// Small-distance geometry for building test tracks, independent of the code under test.
enum Geo {
    /// Metres per degree of latitude on the mean sphere.
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// Ljubljana, Prešernov trg: the origin of most synthetic tracks.
    static let ljubljana = Coordinate(latitude: 46.0514, longitude: 14.5061)

    /// A point `east` and `north` metres from `origin` (flat Earth: exact to millimetres over
    /// a few kilometres, which is all the tests use it for).
    static func offset(_ origin: Coordinate, east: Double = 0, north: Double = 0) -> Coordinate {
        Coordinate(
            latitude: origin.latitude + north / metresPerDegree,
            longitude: origin.longitude + east / (metresPerDegree * cos(origin.latitude * .pi / 180))
        )
    }

    /// A point at `distance` metres from `origin` on `bearing` degrees from north.
    static func offset(_ origin: Coordinate, distance: Double, bearing: Double) -> Coordinate {
        let radians = bearing * .pi / 180
        return offset(origin, east: distance * sin(radians), north: distance * cos(radians))
    }
}

/// A fix with the fields the filters read.
func fix(_ coordinate: Coordinate, at time: Double, accuracy: Double? = 5) -> Location {
    Location(coordinate: coordinate, horizontalAccuracy: accuracy, timestamp: time, fixMode: .threeDimensional)
}

/// A random number in `-amplitude...amplitude`.
func jitter(_ amplitude: Double, using random: inout SeededGenerator) -> Double {
    Double.random(in: -amplitude...amplitude, using: &random)
}
