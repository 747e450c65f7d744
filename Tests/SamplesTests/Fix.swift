import BackgroundKit
import Foundation

/// Fixes as a receiver reports them, for the track tests.
enum Fix {
    /// A fix at `time` seconds after 2024-06-10T07:13:20Z.
    /// - Parameters:
    ///   - latitude: Degrees.
    ///   - longitude: Degrees.
    ///   - altitude: Metres, or `nil` for a 2D fix.
    ///   - time: Seconds after the start.
    /// - Returns: The fix, with accuracy, speed and course when it is 3D.
    static func at(_ latitude: Double, _ longitude: Double, altitude: Double? = nil, time: Double) -> Location {
        Location(
            coordinate: Coordinate(latitude: latitude, longitude: longitude),
            altitude: altitude,
            horizontalAccuracy: altitude == nil ? nil : 4.5,
            speed: altitude == nil ? nil : 1.25,
            course: altitude == nil ? nil : 87.5,
            timestamp: start + time,
            fixMode: altitude == nil ? .twoDimensional : .threeDimensional
        )
    }

    /// 2024-06-10T07:13:20Z.
    static let start = 1_718_003_600.0

    /// A walk north-east: `count` fixes 10.25 s apart, every fifth one 2D, with coordinates to
    /// the ninth decimal (so a writer that keeps fewer loses them) and a steady climb.
    static func walk(count: Int, from time: Double = 0) -> [Location] {
        (0..<count).map { index in
            let step = Double(index)
            return at(
                nineDecimals(46.512_345_678 + step * 0.000_123_457), nineDecimals(7.412_345_671 + step * 0.000_098_761),
                altitude: index % 5 == 4 ? nil : 1_500.25 + step * 0.75, time: time + step * 10.25)
        }
    }

    /// The value a receiver reporting nine decimals gives: the sums above carry binary noise in
    /// the 15th digit, which no receiver reports.
    private static func nineDecimals(_ value: Double) -> Double {
        Double(String(format: "%.9f", value))!
    }
}
