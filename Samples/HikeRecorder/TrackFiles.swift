import BackgroundKit
import Foundation
import SampleSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Where a track's files live in the app's data directory.
struct TrackFiles {
    /// The bundle identifier, which names the data directory.
    static let bundleIdentifier = "org.backgrounder.samples.hikerecorder"

    /// The data directory.
    let directory: String

    /// The append-only log of the current track: the record of truth.
    var log: String { directory + "/track.log" }
    /// The current track as GPX, rewritten after every batch.
    var gpx: String { directory + "/track.gpx" }

    /// The files in a data directory.
    /// - Parameter directory: The directory.
    init(directory: String) {
        self.directory = directory
    }

    /// The files the app uses, for the app itself: its `BACKGROUNDER_DATA_DIR`.
    static func forApp() -> TrackFiles {
        TrackFiles(directory: Application.dataDirectory(forBundle: bundleIdentifier))
    }

    /// The files the daemon's app uses, for the command line: in the state directory
    /// `--state-dir` names, else where the daemon it talks to (`BACKGROUNDER_SOCKET`) says.
    /// - Parameter stateDirectory: `--state-dir`, when given.
    /// - Returns: The files, or `nil` when the daemon cannot say (said on standard error).
    static func forCommandLine(stateDirectory: String?) -> TrackFiles? {
        SampleDataDirectory.find(forBundle: bundleIdentifier, stateDirectory: stateDirectory, program: "HikeRecorder")
            .map(TrackFiles.init(directory:))
    }
}

/// The tracks kept in the data directory: archived ones (`track-TIME.log`, named after their
/// first fix), and the current one (`track.log`).
extension TrackFiles {
    /// One track's files.
    struct Track: Equatable {
        /// Its log, the record of truth.
        var log: String
        /// Its GPX file.
        var gpx: String { String(log.dropLast(".log".count)) + ".gpx" }
        /// Whether it is the track fixes are recorded into.
        var isCurrent: Bool
    }

    /// Every track, oldest first: archived ones by their names (which sort by time), then the
    /// current one when it has a log.
    func tracks() -> [Track] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let archived = names.filter { $0.hasPrefix("track-") && $0.hasSuffix(".log") }.sorted()
        var tracks = archived.map { Track(log: directory + "/" + $0, isCurrent: false) }
        if access(log, F_OK) == 0 { tracks.append(Track(log: log, isCurrent: true)) }
        return tracks
    }

    /// The track a person named: its number in `HikeRecorder list` (1 is the oldest),
    /// `current`, or its archive's time (`20250614T073020Z`); the current one by default.
    /// - Throws: ``TrackChoiceError`` naming what matched nothing.
    func track(named name: String?) throws(TrackChoiceError) -> Track {
        let all = tracks()
        guard let name, name != "current" else { return Track(log: log, isCurrent: true) }
        if let number = Int(name) {
            guard number >= 1, number <= all.count else {
                throw TrackChoiceError(name: name, count: all.count)
            }
            return all[number - 1]
        }
        guard let match = all.first(where: { $0.log.hasSuffix("/track-\(name).log") }) else {
            throw TrackChoiceError(name: name, count: all.count)
        }
        return match
    }

    /// Archives the current track under the time of its first fix, so the next fix starts a
    /// new one.
    /// - Parameter firstFix: When the current track's first fix was taken.
    /// - Returns: The archived log's path.
    /// - Throws: ``FileError`` when a rename fails.
    func archiveCurrent(firstFix: Double) throws -> String {
        let stamp = UTCTime.compact(firstFix)
        var base = directory + "/track-" + stamp
        var suffix = 2
        while access(base + ".log", F_OK) == 0 || access(base + ".gpx", F_OK) == 0 {
            base = directory + "/track-\(stamp)-\(suffix)"
            suffix += 1
        }
        try FileError.check(.rename, log) { rename(log, base + ".log") }
        if access(gpx, F_OK) == 0 {
            try FileError.check(.rename, gpx) { rename(gpx, base + ".gpx") }
        }
        try? DurableFiles.syncDirectory(of: log)
        return base + ".log"
    }
}

/// A track name that matched no track.
struct TrackChoiceError: Error, CustomStringConvertible {
    var name: String
    var count: Int

    var description: String {
        "no track \(name): HikeRecorder list shows \(count == 1 ? "1 track" : "\(count) tracks") (1 is the oldest), or use current"
    }
}
