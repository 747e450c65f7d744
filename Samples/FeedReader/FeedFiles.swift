import BackgroundKit
import SampleSupport

/// Where the reader's files live in the app's data directory.
struct FeedFiles: Sendable {
    /// The bundle identifier, which names the data directory.
    static let bundleIdentifier = "org.backgrounder.samples.feedreader"

    /// The data directory.
    let directory: String

    /// The feed's address, one line: an `http://` or `https://` URL, or a file (`file://` URL or
    /// absolute path) the app can read. The app is sandboxed: a file must be in its data directory.
    var source: String { directory + "/feed.url" }
    /// The items and what the last fetch learned (validators, content hash), as JSON.
    var items: String { directory + "/items.json" }

    /// The files in a data directory.
    init(directory: String) {
        self.directory = directory
    }

    /// The files the app uses, for the app itself: its `BACKGROUNDER_DATA_DIR`.
    static func forApp() -> FeedFiles {
        FeedFiles(directory: Application.dataDirectory(forBundle: bundleIdentifier))
    }

    /// The files the daemon's app uses, for the command line: in the state directory
    /// `--state-dir` names, else where the daemon it talks to (`BACKGROUNDER_SOCKET`) says.
    /// - Parameter stateDirectory: `--state-dir`, when given.
    /// - Returns: The files, or `nil` when the daemon cannot say (said on standard error).
    static func forCommandLine(stateDirectory: String?) -> FeedFiles? {
        SampleDataDirectory.find(forBundle: bundleIdentifier, stateDirectory: stateDirectory, program: "FeedReader")
            .map(FeedFiles.init(directory:))
    }
}
