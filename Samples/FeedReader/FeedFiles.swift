import BackgroundKit

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

    /// The files the daemon's app uses.
    /// - Parameter stateDirectory: The daemon's `--state-dir`, when not the default.
    static func forApp(stateDirectory: String?) -> FeedFiles {
        FeedFiles(directory: Application.dataDirectory(forBundle: bundleIdentifier, stateDirectory: stateDirectory))
    }
}
