/// The fixes an NMEA log reports, read without gpsd: each `GGA` sentence with a fix gives a
/// time, position, altitude and HDOP, dated by the latest `RMC`, whose speed and course it
/// takes when the `RMC` is of the same epoch. Sentences whose checksum fails are skipped, as
/// gpsd skips them. For replaying a recorded walk (`bgctl simulate route`) and for tests.
public enum NMEAFixes {
    /// The fixes, in the order the log has them.
    /// - Parameter text: The log.
    public static func parse(_ text: String) -> [Location] {
        var day: Double?
        var fixes: [Location] = []
        for line in text.split(whereSeparator: \.isNewline) {
            guard let sentence = checked(line) else { continue }
            let fields = sentence.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard let kind = fields.first?.dropFirst(2), fields.count > 9 else { continue }
            if kind == "RMC", let date = Self.day(fields[9]) {
                day = date
                if let last = fixes.last, let time = seconds(fields[1]), last.timestamp == date + time {
                    fixes[fixes.count - 1].speed = Double(fields[7]).map { $0 * 0.514_444 }
                    fixes[fixes.count - 1].course = Double(fields[8])
                }
            }
            guard kind == "GGA", !["0", ""].contains(fields[6]), let day, let time = seconds(fields[1]),
                let latitude = degrees(fields[2], fields[3]), let longitude = degrees(fields[4], fields[5])
            else { continue }
            let altitude = Double(fields[9])
            fixes.append(
                Location(
                    coordinate: Coordinate(latitude: latitude, longitude: longitude), altitude: altitude,
                    horizontalAccuracy: Double(fields[8]).map { $0 * 5 }, timestamp: day + time,
                    fixMode: altitude == nil ? .twoDimensional : .threeDimensional))
        }
        return fixes
    }

    /// The sentence between `$` and `*` when its checksum holds (or it has none).
    private static func checked(_ line: Substring) -> Substring? {
        guard let dollar = line.firstIndex(of: "$") else { return nil }
        let body = line[line.index(after: dollar)...]
        guard let star = body.firstIndex(of: "*") else { return body }
        let sum = body[..<star].utf8.reduce(UInt8(0), ^)
        let given = body[body.index(after: star)...].prefix(2)
        return UInt8(given, radix: 16) == sum ? body[..<star] : nil
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
            let year = Int(text.suffix(2)), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        return Double(Civil.days(year: 2000 + year, month: month, day: day)) * 86_400
    }

    /// `4621.9179`, `N` as decimal degrees.
    private static func degrees(_ text: String, _ hemisphere: String) -> Double? {
        guard let value = Double(text), ["N", "S", "E", "W"].contains(hemisphere) else { return nil }
        let whole = (value / 100).rounded(.down)
        let degrees = whole + (value - whole * 100) / 60
        return hemisphere == "S" || hemisphere == "W" ? -degrees : degrees
    }
}
