import BackgroundKit
import SampleSupport

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
