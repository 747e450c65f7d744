#if canImport(Glibc)
    import Glibc
#endif

/// The shape of an app's log (`STATE/logs/ID.log`): every line the app wrote, after the time
/// the daemon read it, and a marker line from the daemon where each run starts and ends, as
/// `journalctl` marks a boot.
///
///     -- 2026-12-01T04:40:12.345+0000 launched (user) as pid 4711 --
///     2026-12-01T04:40:12.360+0000 hello, world
///     -- 2026-12-01T04:40:13.002+0000 crashed: exited with status 3 --
///
/// The time is the daemon's local time with its offset, to the millisecond; always 28
/// characters and a space, so a reader takes the app's text after ``stampLength``
/// characters. An app cannot forge a marker: the daemon starts every line the app writes
/// with a stamp, so the app's text never starts a line.
public enum AppLogFormat {
    /// The characters of a stamp and the space after it.
    public static let stampLength = 29
    /// What a marker line starts with, before its stamp.
    public static let markerPrefix = "-- "

    /// The stamp for a wall-clock time, with the space after it:
    /// `2026-12-01T04:40:12.345+0000 `.
    /// - Parameters:
    ///   - seconds: Seconds since 1970 (`CLOCK_REALTIME`).
    ///   - nanoseconds: And the nanoseconds into that second.
    public static func stamp(seconds: Int, nanoseconds: Int) -> [UInt8] {
        var seconds = time_t(seconds)
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 40)
        let written = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S", &parts)
        let milliseconds = nanoseconds / 1_000_000
        let offsetMinutes = parts.tm_gmtoff / 60
        let sign = offsetMinutes < 0 ? "-" : "+"
        let offset = abs(offsetMinutes)
        var text = String(decoding: buffer[..<written].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        text += "." + padded(milliseconds, 3) + sign + padded(offset / 60, 2) + padded(offset % 60, 2) + " "
        return Array(text.utf8)
    }

    /// The stamp for now.
    public static func stampNow() -> [UInt8] {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return stamp(seconds: now.tv_sec, nanoseconds: now.tv_nsec)
    }

    /// A whole marker line, newline included.
    public static func markerLine(_ text: String) -> [UInt8] {
        Array(markerPrefix.utf8) + stampNow() + Array((text + " --\n").utf8)
    }

    /// One line of the log taken apart.
    public struct Line: Sendable, Hashable {
        /// The stamp without its space, or `nil` for a line without one (written before stamps,
        /// or cut by a rotation).
        public var stamp: Substring?
        /// What the app wrote, or the marker's text.
        public var text: Substring
        /// Whether the daemon wrote it: a run's start or end.
        public var isMarker: Bool
    }

    /// Takes a line apart.
    public static func parse(_ line: Substring) -> Line {
        let isMarker = line.hasPrefix(markerPrefix)
        let start = isMarker ? line.utf8.index(line.startIndex, offsetBy: markerPrefix.utf8.count) : line.startIndex
        let rest = line[start...]
        guard rest.utf8.count >= stampLength, isStamp(rest.utf8.prefix(stampLength)) else {
            return Line(stamp: nil, text: line, isMarker: false)
        }
        let split = rest.utf8.index(start, offsetBy: stampLength)
        var text = line[split...]
        if isMarker, text.hasSuffix(" --") { text = text.dropLast(3) }
        return Line(stamp: line[start..<line.utf8.index(before: split)], text: text, isMarker: isMarker)
    }

    /// The app's own lines of a log's text, stamps and markers taken away: what it wrote.
    public static func appText(_ log: String) -> String {
        var lines: [Substring] = []
        for line in log.split(separator: "\n", omittingEmptySubsequences: false) {
            let parsed = parse(line)
            if !parsed.isMarker { lines.append(parsed.text) }
        }
        return lines.joined(separator: "\n")
    }

    /// The app's lines since the last run started, stamps and markers taken away, at most
    /// `count` from the end: what a process that just ended wrote last.
    public static func lastRunLines(_ log: String, count: Int) -> [Substring] {
        var lines: [Substring] = []
        for line in log.split(separator: "\n") {
            let parsed = parse(line)
            if parsed.isMarker {
                if parsed.text.hasPrefix(runStartWord) { lines = [] }
                continue
            }
            lines.append(parsed.text)
        }
        return Array(lines.suffix(count))
    }

    /// The first word of a run's start marker.
    public static let runStartWord = "launched"

    /// `2026-12-01T04:40:12.345+0000 `: digits where digits go, the rest as written.
    private static func isStamp(_ bytes: Substring.UTF8View.SubSequence) -> Bool {
        let shape = Array("0000-00-00T00:00:00.000+0000 ".utf8)
        for (byte, expected) in zip(bytes, shape) {
            switch expected {
            case UInt8(ascii: "0"): guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return false }
            case UInt8(ascii: "+"): guard byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") else { return false }
            default: guard byte == expected else { return false }
            }
        }
        return true
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
