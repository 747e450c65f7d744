import BackgroundKit

/// Records a track: every fix once, in the log first, then in the GPX file.
final class TrackRecorder {
    /// What one batch did, for the app's log.
    struct BatchReport {
        /// What the log recorded.
        var append: TrackLog.Append
        /// Tracks archived because a fix came after a gap that ends a hike (``TrackPolicy``).
        var archived: [String] = []
        /// Fixes in the track now.
        var total: Int
        /// The whole track.
        var statistics: TrackStatistics
        /// Why `track.gpx` could not be rewritten (the log still has every fix).
        var gpxProblem: (any Error)?

        /// `recorded 12 fixes (total 340): 2.41 km, 31 min, +57 m`.
        var line: String {
            var line = archived.map { "archived \($0); a new track starts\n" }.joined()
            line += "recorded \(append.recorded.count) fixes (total \(total)): \(statistics.summary)"
            if append.alreadyRecorded > 0 { line += "; \(append.alreadyRecorded) already recorded" }
            if append.invalid > 0 { line += "; \(append.invalid) without a valid position or time" }
            if let gpxProblem { line += "; track.gpx not updated: \(gpxProblem)" }
            return line
        }
    }

    /// The files it writes.
    let files: TrackFiles
    private var log: TrackLog

    /// Opens the current track, continuing it where it stopped.
    /// - Parameter files: Where the track lives; the directory is created when missing.
    /// - Throws: ``FileError`` when the log cannot be read or opened.
    init(files: TrackFiles) throws {
        self.files = files
        try DurableFiles.makeDirectory(files.directory)
        log = try Self.openCurrent(files)
    }

    /// Opens the current log; fixes no newer than the last archived track's end count as
    /// recorded (a batch delivered again after a crash that came between archiving and
    /// recording).
    private static func openCurrent(_ files: TrackFiles) throws -> TrackLog {
        let previous = files.tracks().last { !$0.isCurrent }
        let floor = try previous.flatMap { try TrackLog.read($0.log)?.fixes.last?.timestamp } ?? -Double.infinity
        return try TrackLog(path: files.log, after: floor)
    }

    /// Every fix of the current track, oldest first.
    var fixes: [Location] { log.fixes }

    /// What opening the log found, for the app's log.
    var resumeLine: String {
        var line =
            log.fixes.isEmpty
            ? "new track in \(files.log)"
            : "continuing the track in \(files.log): \(log.fixes.count) fixes, \(TrackStatistics(log.fixes).summary)"
        if log.recovered.tornBytes > 0 {
            line += "; dropped \(log.recovered.tornBytes) bytes of a fix being written when the app was killed"
        }
        if !log.recovered.unreadableLines.isEmpty {
            line +=
                "; skipped unreadable lines \(log.recovered.unreadableLines.map(String.init).joined(separator: ", "))"
        }
        return line
    }

    /// Records a batch: appends its new fixes to the log (on disk when this returns), then
    /// rewrites the GPX file.
    /// - Parameter batch: Fixes as delivered, oldest first.
    /// - Returns: What was recorded.
    /// - Throws: ``FileError`` when the log cannot be written; the batch is then not recorded.
    func record(_ batch: [Location]) throws -> BatchReport {
        if !log.isStillAtPath {
            // `HikeRecorder start` archived the track while this process held it open.
            log = try Self.openCurrent(files)
        }
        var append = TrackLog.Append(recorded: [], alreadyRecorded: 0, invalid: 0)
        var archived: [String] = []
        for (index, part) in Self.hikes(in: batch, after: log.fixes.last).enumerated() {
            if index > 0, let first = log.fixes.first {
                // The previous hike is complete on disk: archived before the next one's fixes.
                try writeGPX()
                archived.append(try files.archiveCurrent(firstFix: first.timestamp))
                log = try Self.openCurrent(files)
            }
            let done = try log.append(part)
            append.recorded += done.recorded
            append.alreadyRecorded += done.alreadyRecorded
            append.invalid += done.invalid
        }
        var gpxProblem: (any Error)?
        if !append.recorded.isEmpty {
            do {
                try writeGPX()
            } catch {
                gpxProblem = error
            }
        }
        return BatchReport(
            append: append, archived: archived, total: log.fixes.count, statistics: TrackStatistics(log.fixes),
            gpxProblem: gpxProblem)
    }

    /// A batch cut where a fix begins another hike (``TrackPolicy/startsNewTrack(after:_:)``)
    /// after the last one recorded, or after an earlier fix of the batch.
    static func hikes(in batch: [Location], after last: Location?) -> [[Location]] {
        var parts: [[Location]] = [[]]
        var previous = last
        for fix in batch {
            let usable = fix.coordinate.isValid && fix.timestamp.isFinite
            if usable, let before = previous, fix.timestamp > before.timestamp,
                TrackPolicy.startsNewTrack(after: before, fix)
            {
                parts.append([])
            }
            parts[parts.count - 1].append(fix)
            if usable, fix.timestamp > (previous?.timestamp ?? -Double.infinity) { previous = fix }
        }
        return parts
    }

    private func writeGPX() throws {
        let document = GPXWriter.document(fixes: log.fixes, name: GPXWriter.defaultName(for: log.fixes))
        try DurableFiles.replace(files.gpx, with: Array(document.utf8))
    }
}
