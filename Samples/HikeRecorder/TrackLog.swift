import BackgroundKit

/// The append-only file a track is kept in: a header line, then one line per fix, oldest
/// first (``Location/trackLogLine``).
///
/// Each batch is one write and one fsync, made before the delegate returns, because the daemon
/// forgets fixes only once the delegate has returned: a fix is on disk, or still queued in the
/// daemon. It may then come again (a crash after the fsync), so a fix is appended only when
/// it is newer than the last one recorded.
final class TrackLog {
    /// The first line of every log, for a person who opens it.
    static let header = "# HikeRecorder track log 1: time,latitude,longitude,altitude,horizontalAccuracy,speed,course"

    /// What reading a log found besides its fixes.
    struct Contents {
        /// The fixes, oldest first.
        var fixes: [Location] = []
        /// Bytes after the last newline: a line being written when the app was killed.
        var tornBytes = 0
        /// Line numbers (from 1) of complete lines that are not fixes; they are skipped.
        var unreadableLines: [Int] = []
        /// Bytes up to and including the last newline.
        var intactLength = 0
    }

    /// What ``TrackLog/append(_:)`` did with a batch.
    struct Append {
        /// The fixes it recorded, oldest first.
        var recorded: [Location]
        /// Fixes it left out because one as new was already recorded (delivered again).
        var alreadyRecorded: Int
        /// Fixes it left out because their position or time is not a real one.
        var invalid: Int
    }

    /// The log's path.
    let path: String
    /// Every fix recorded, oldest first.
    private(set) var fixes: [Location]
    /// What opening found: a torn last line (now cut off) and unreadable lines.
    let recovered: Contents
    private let file: AppendOnlyFile

    /// Fixes taken at or before this time are taken for ones recorded already: in a track
    /// archived just before this one started, and delivered again after a crash.
    private let floor: Double

    /// Opens a log for appending, reading back what it holds and cutting off a torn last line;
    /// creates it with its header when it does not exist.
    /// - Parameters:
    ///   - path: The log.
    ///   - floor: The last fix time of the track before this one, if any.
    /// - Throws: ``FileError`` when it cannot be read, repaired or opened.
    init(path: String, after floor: Double = -Double.infinity) throws {
        self.path = path
        self.floor = floor
        let contents = try TrackLog.read(path) ?? Contents()
        file = try AppendOnlyFile(path: path)
        if contents.tornBytes > 0 {
            try file.truncate(to: contents.intactLength)
        }
        if contents.intactLength == 0 {
            try file.append(Array((TrackLog.header + "\n").utf8))
        }
        fixes = contents.fixes
        recovered = contents
    }

    /// Appends the fixes of a batch that are newer than the last one recorded, and returns once
    /// they are on disk.
    /// - Parameter batch: Fixes as the location manager delivered them, oldest first.
    /// - Returns: What was recorded and what was left out.
    /// - Throws: ``FileError`` when writing or syncing fails; then nothing counts as recorded.
    func append(_ batch: [Location]) throws -> Append {
        var latest = max(fixes.last?.timestamp ?? -Double.infinity, floor)
        var result = Append(recorded: [], alreadyRecorded: 0, invalid: 0)
        var text = ""
        for fix in batch {
            guard fix.coordinate.isValid, fix.timestamp.isFinite else {
                result.invalid += 1
                continue
            }
            guard fix.timestamp > latest else {
                result.alreadyRecorded += 1
                continue
            }
            latest = fix.timestamp
            result.recorded.append(fix)
            text += fix.trackLogLine + "\n"
        }
        guard !result.recorded.isEmpty else { return result }
        try file.append(Array(text.utf8))
        fixes += result.recorded
        return result
    }

    /// Whether the path still names this log; `false` once `HikeRecorder new` archived it.
    var isStillAtPath: Bool { file.isStillAtPath }

    /// Reads a log without changing it (the app may be writing it).
    /// - Parameter path: The log.
    /// - Returns: What it holds, or `nil` when there is no log.
    /// - Throws: ``FileError`` when it exists but cannot be read.
    static func read(_ path: String) throws -> Contents? {
        guard let bytes = try DurableFiles.read(path) else { return nil }
        return parse(bytes)
    }

    /// Reads the bytes of a log.
    /// - Parameter bytes: The whole file.
    /// - Returns: Its fixes, and what was torn or unreadable.
    static func parse(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        let newline = UInt8(ascii: "\n")
        contents.intactLength = (bytes.lastIndex(of: newline) ?? -1) + 1
        contents.tornBytes = bytes.count - contents.intactLength
        let intact = String(decoding: bytes[..<contents.intactLength], as: UTF8.self)
        for (index, line) in intact.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            if let fix = Location(trackLogLine: line) {
                contents.fixes.append(fix)
            } else {
                contents.unreadableLines.append(index + 1)
            }
        }
        return contents
    }
}
