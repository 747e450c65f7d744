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

/// One of the generated GPS fixtures' truth tables (`scripts/make-walks.py`): the noise-free
/// track and what the receiver reported.
struct TruthTrack {
    struct Row {
        /// Seconds since 1970.
        var time: Double
        var truth: Coordinate
        /// The reported fix, with 5 m per unit of HDOP as its accuracy; `nil` without a fix.
        var reported: Location?
    }

    var rows: [Row]

    /// The reported fixes, in order.
    var fixes: [Location] { rows.compactMap(\.reported) }

    /// Metres along the noise-free track.
    var length: Double {
        zip(rows, rows.dropFirst()).reduce(0) { $0 + $1.0.truth.distance(to: $1.1.truth) }
    }

    /// Reads `Tests/Fixtures/gps/NAME.truth.csv`.
    static func load(_ name: String) throws -> TruthTrack {
        let text = try String(contentsOfFile: Locations.gpsFixture(name + ".truth.csv"), encoding: .utf8)
        let dates = ISO8601DateFormatter()
        var rows: [Row] = []
        for line in text.split(separator: "\n").dropFirst() {
            // time_iso8601,lat,lon,alt_m,fix,reported_lat,reported_lon,hdop
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 8, let date = dates.date(from: fields[0]),
                let latitude = Double(fields[1]), let longitude = Double(fields[2])
            else { throw FixtureError(line: String(line)) }
            let time = date.timeIntervalSince1970
            var reported: Location?
            if fields[4] == "1", let lat = Double(fields[5]), let lon = Double(fields[6]), let hdop = Double(fields[7])
            {
                reported = fix(Coordinate(latitude: lat, longitude: lon), at: time, accuracy: hdop * 5)
            }
            rows.append(
                Row(time: time, truth: Coordinate(latitude: latitude, longitude: longitude), reported: reported))
        }
        return TruthTrack(rows: rows)
    }

    struct FixtureError: Error, CustomStringConvertible {
        var line: String
        var description: String { "unreadable truth line: \(line)" }
    }
}
