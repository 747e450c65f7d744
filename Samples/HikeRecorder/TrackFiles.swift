import BackgroundKit

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

    /// The files the daemon's app uses, for the command line.
    /// - Parameter stateDirectory: The daemon's `--state-dir`, when not the default.
    /// - Returns: The files in the app's data directory.
    static func forApp(stateDirectory: String?) -> TrackFiles {
        TrackFiles(directory: Application.dataDirectory(forBundle: bundleIdentifier, stateDirectory: stateDirectory))
    }
}
