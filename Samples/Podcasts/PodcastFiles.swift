import BackgroundKit

/// Where the app's files live in its data directory.
struct PodcastFiles: Sendable {
    /// The bundle identifier, which names the data directory.
    static let bundleIdentifier = "org.backgrounder.samples.podcasts"
    /// The background session's identifier.
    static let sessionIdentifier = "org.backgrounder.samples.podcasts.episodes"

    /// The data directory.
    let directory: String

    /// The feed's address, one line: an `http://` or `https://` URL.
    var feed: String { directory + "/feed.url" }
    /// The downloaded episodes, as JSON (``EpisodeIndex``).
    var index: String { directory + "/episodes.json" }
    /// Where the episodes' files go: a directory BackgroundPlayer can play once copied into
    /// its own data directory.
    var episodes: String { directory + "/Episodes" }

    /// The files in a data directory.
    init(directory: String) {
        self.directory = directory
    }

    /// The files the daemon's app uses.
    /// - Parameter stateDirectory: The daemon's `--state-dir`, when not the default.
    static func forApp(stateDirectory: String?) -> PodcastFiles {
        PodcastFiles(directory: Application.dataDirectory(forBundle: bundleIdentifier, stateDirectory: stateDirectory))
    }
}
