import BackgroundKit

/// Records a track: every fix once, in the log first, then in the GPX file.
final class TrackRecorder {
    /// What one batch did, for the app's log.
    struct BatchReport {
        /// What the log recorded.
        var append: TrackLog.Append
        /// Fixes in the track now.
        var total: Int
        /// The whole track.
        var statistics: TrackStatistics
        /// Why `track.gpx` could not be rewritten (the log still has every fix).
        var gpxProblem: (any Error)?

        /// `recorded 12 fixes (total 340): 2.41 km, 31 min, +57 m`.
        var line: String {
            var line = "recorded \(append.recorded.count) fixes (total \(total)): \(statistics.summary)"
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
        log = try TrackLog(path: files.log)
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
            // `HikeRecorder new` archived the track while this process held it open.
            log = try TrackLog(path: files.log)
        }
        let append = try log.append(batch)
        var gpxProblem: (any Error)?
        if !append.recorded.isEmpty {
            do {
                try writeGPX()
            } catch {
                gpxProblem = error
            }
        }
        return BatchReport(
            append: append, total: log.fixes.count, statistics: TrackStatistics(log.fixes), gpxProblem: gpxProblem)
    }

    private func writeGPX() throws {
        let document = GPXWriter.document(fixes: log.fixes, name: GPXWriter.defaultName(for: log.fixes))
        try DurableFiles.replace(files.gpx, with: Array(document.utf8))
    }
}
