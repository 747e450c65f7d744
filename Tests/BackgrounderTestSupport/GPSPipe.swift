import Foundation

/// `gpspipe -w -u`, a second gpsd client beside the daemon: what gpsd really reported, each
/// line stamped with the wall-clock time gpspipe read it.
public final class GPSPipe: Sendable {
    /// One TPV with a fix, as gpspipe saw it.
    public struct Report: Sendable, Hashable {
        /// Fix time, seconds since 1970.
        public var time: Double
        /// Degrees.
        public var latitude: Double
        /// Degrees.
        public var longitude: Double
        /// gpsd's 95 % horizontal error estimate, metres.
        public var eph: Double?
        /// When gpspipe read it, seconds since 1970.
        public var receivedAt: Double
    }

    private let process: ChildProcess

    /// Starts capturing from `127.0.0.1:port`.
    public init(port: UInt16, directory: TemporaryDirectory) throws {
        process = try ChildProcess(
            // Line-buffered, so what it read is in the log while it still runs.
            "/usr/bin/env", ["stdbuf", "-oL", "gpspipe", "-w", "-u", "127.0.0.1:\(port)"],
            logPath: directory.appending("gpspipe-\(port).log"))
    }

    /// Stops gpspipe.
    public func stop() async { await process.stop(grace: .seconds(2)) }

    /// Every TPV with a 2D/3D fix, a time and a position, first report per fix time (gpsd
    /// 3.22 sends one per NMEA sentence), in order.
    public var reports: [Report] {
        var seen = Set<Double>()
        var reports: [Report] = []
        let timeFormat = ISO8601DateFormatter()
        timeFormat.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let secondFormat = ISO8601DateFormatter()
        for line in process.output.split(whereSeparator: \.isNewline).map(String.init) {
            // `STAMP: {JSON}`, CRLF-terminated (gpsd speaks CRLF)
            guard let separator = line.range(of: ": {") else { continue }
            let json = Data(line[line.index(before: separator.upperBound)...].utf8)
            guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
                object["class"] as? String == "TPV", (object["mode"] as? Int ?? 0) >= 2,
                let timeText = object["time"] as? String, let time = timeFormat.date(from: timeText),
                let latitude = object["lat"] as? Double, let longitude = object["lon"] as? Double,
                let stamp = Self.stamp(String(line[..<separator.lowerBound]), secondFormat)
            else { continue }
            guard seen.insert(time.timeIntervalSince1970).inserted else { continue }
            reports.append(
                Report(
                    time: time.timeIntervalSince1970, latitude: latitude, longitude: longitude,
                    eph: object["eph"] as? Double, receivedAt: stamp))
        }
        return reports
    }

    /// gpspipe's `2026-11-23 00:55:40.435632` (UTC) as seconds since 1970.
    private static func stamp(_ text: String, _ format: ISO8601DateFormatter) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard let whole = format.date(from: parts[0].replacingOccurrences(of: " ", with: "T") + "Z") else { return nil }
        return whole.timeIntervalSince1970 + (parts.count > 1 ? Double("0." + parts[1]) ?? 0 : 0)
    }
}

/// NMEA logs built for one test from the repository's fixtures.
public enum NMEALog {
    /// The fixture with its first no-fix epoch repeated in front for about `seconds` of replay:
    /// a receiver still searching. gpsfake `-1` feeds gpsd at once, connected or not, so this
    /// gives the daemon (whose reconnection backoff reaches 5 s), gpspipe and a subscribing
    /// app time to be there before the first fix.
    /// - Parameters:
    ///   - seconds: Wall-clock seconds of searching at gpsfake's `cycle` (seconds per sentence).
    /// - Returns: The new file's path.
    public static func withColdStart(
        _ fixture: String, seconds: Double = 8, cycle: Double, in directory: TemporaryDirectory
    ) throws -> String {
        let text = try String(contentsOfFile: Locations.gpsFixture(fixture), encoding: .utf8)
        let lines = text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$") }
        let firstEpoch = lines.prefix { !$0.hasPrefix("$GPRMC") } + lines.drop { !$0.hasPrefix("$GPRMC") }.prefix(1)
        let epochs = max(1, Int(seconds / (cycle * Double(firstEpoch.count))))
        let prelude = Array(repeating: firstEpoch.joined(separator: "\n"), count: epochs).joined(separator: "\n")
        let path = directory.appending("cold-\(fixture)")
        try (prelude + "\n" + lines.joined(separator: "\n") + "\n").write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
