public import BackgrounderCore
import Foundation

/// The fixes an NMEA log reports, with their altitudes, read without gpsd: `GGA` gives the
/// time, position and altitude of each epoch with a fix, and the last `RMC` the date.
/// For tests of what an app makes of a walk (a recorder's tracks and climbs), where the
/// daemon's own path from gpsd is not what is tested.
public enum NMEAFixes {
    /// The fixes of `Tests/Fixtures/gps/NAME` (or any path), oldest first.
    public static func read(_ path: String) throws -> [Location] {
        let file = path.hasPrefix("/") ? path : Locations.gpsFixture(path)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var day: Double?
        var fixes: [Location] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: "*").first?.split(separator: ",", omittingEmptySubsequences: false) ?? []
            guard let kind = fields.first?.dropFirst(3) else { continue }
            if kind == "RMC", fields.count > 9, let date = Self.day(String(fields[9])) {
                day = date
            }
            guard kind == "GGA", fields.count > 9, fields[6] != "0", let day,
                let time = Self.seconds(String(fields[1])),
                let latitude = Self.degrees(String(fields[2]), String(fields[3])),
                let longitude = Self.degrees(String(fields[4]), String(fields[5]))
            else { continue }
            fixes.append(
                Location(
                    coordinate: Coordinate(latitude: latitude, longitude: longitude), altitude: Double(fields[9]),
                    horizontalAccuracy: Double(fields[8]).map { $0 * 5 }, timestamp: day + time,
                    fixMode: .threeDimensional))
        }
        // A GGA comes before its epoch's RMC: the first epochs of a day get the date late,
        // which only matters at midnight; the fixtures start in the morning.
        return fixes
    }

    /// `073020.00` as seconds into the day.
    private static func seconds(_ text: String) -> Double? {
        guard text.count >= 6, let hours = Double(text.prefix(2)), let minutes = Double(text.dropFirst(2).prefix(2)),
            let seconds = Double(text.dropFirst(4))
        else { return nil }
        return hours * 3600 + minutes * 60 + seconds
    }

    /// `140625` (14 June 2025) as seconds since 1970 at midnight UTC.
    private static func day(_ text: String) -> Double? {
        guard text.count == 6, let day = Int(text.prefix(2)), let month = Int(text.dropFirst(2).prefix(2)),
            let year = Int(text.suffix(2))
        else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (2000 + year, month, day)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: components)?.timeIntervalSince1970
    }

    /// `4621.9179`, `N` as decimal degrees.
    private static func degrees(_ text: String, _ hemisphere: String) -> Double? {
        guard let value = Double(text), !hemisphere.isEmpty else { return nil }
        let whole = (value / 100).rounded(.down)
        let degrees = whole + (value - whole * 100) / 60
        return hemisphere == "S" || hemisphere == "W" ? -degrees : degrees
    }
}
