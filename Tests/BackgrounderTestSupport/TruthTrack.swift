public import BackgrounderCore
import Foundation

/// One of the generated GPS fixtures' truth tables (`scripts/make-walks.py`): the noise-free
/// track and what the receiver reported, one row per epoch.
public struct TruthTrack: Sendable {
    /// One epoch.
    public struct Row: Sendable {
        /// Seconds since 1970.
        public var time: Double
        /// Where the receiver really was.
        public var truth: Coordinate
        /// Its true altitude, metres.
        public var altitude: Double
        /// The reported fix, 3D, with 5 m per unit of HDOP as its accuracy; `nil` without a fix.
        public var reported: Location?
    }

    /// The epochs, in order.
    public var rows: [Row]

    /// The reported fixes, in order.
    public var fixes: [Location] { rows.compactMap(\.reported) }

    /// Metres along the noise-free track.
    public var length: Double {
        zip(rows, rows.dropFirst()).reduce(0) { $0 + $1.0.truth.distance(to: $1.1.truth) }
    }

    /// Reads `Tests/Fixtures/gps/NAME.truth.csv`.
    public static func load(_ name: String) throws -> TruthTrack {
        let text = try String(contentsOfFile: Locations.gpsFixture(name + ".truth.csv"), encoding: .utf8)
        let dates = ISO8601DateFormatter()
        var rows: [Row] = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            // time_iso8601,lat,lon,alt_m,fix,reported_lat,reported_lon,hdop
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 8, let date = dates.date(from: fields[0]),
                let latitude = Double(fields[1]), let longitude = Double(fields[2]), let altitude = Double(fields[3])
            else { throw FixtureError(line: String(line)) }
            let time = date.timeIntervalSince1970
            var reported: Location?
            if fields[4] == "1", let lat = Double(fields[5]), let lon = Double(fields[6]), let hdop = Double(fields[7])
            {
                reported = Location(
                    coordinate: Coordinate(latitude: lat, longitude: lon), horizontalAccuracy: hdop * 5,
                    timestamp: time, fixMode: .threeDimensional)
            }
            rows.append(
                Row(
                    time: time, truth: Coordinate(latitude: latitude, longitude: longitude), altitude: altitude,
                    reported: reported))
        }
        return TruthTrack(rows: rows)
    }

    /// A line the table should not have.
    public struct FixtureError: Error, CustomStringConvertible {
        /// The line.
        public var line: String
        public var description: String { "unreadable truth line: \(line)" }
    }
}
