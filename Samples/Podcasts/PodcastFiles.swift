import BackgroundKit
import SampleSupport

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

    /// The files the app uses, for the app itself: its `BACKGROUNDER_DATA_DIR`.
    static func forApp() -> PodcastFiles {
        PodcastFiles(directory: Application.dataDirectory(forBundle: bundleIdentifier))
    }

    /// The files the daemon's app uses, for the command line: in the state directory
    /// `--state-dir` names, else where the daemon it talks to (`BACKGROUNDER_SOCKET`) says.
    /// - Parameter stateDirectory: `--state-dir`, when given.
    /// - Returns: The files, or `nil` when the daemon cannot say (said on standard error).
    static func forCommandLine(stateDirectory: String?) -> PodcastFiles? {
        SampleDataDirectory.find(forBundle: bundleIdentifier, stateDirectory: stateDirectory, program: "Podcasts")
            .map(PodcastFiles.init(directory:))
    }
}
