public import BackgrounderCore

/// `DATA_DIRECTORY` reply: where the daemon keeps an app's data directory (its container, as
/// on iOS), for a person's tools such as a sample's command line. The daemon alone knows the
/// layout under its `--state-dir`, so a tool asks the daemon it talks to instead of guessing
/// from a default. An app has its own as `BACKGROUNDER_DATA_DIR` and never needs to ask.
public struct AppDataDirectory: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// The directory; it may not exist yet for an app that has never run.
    public var path: String

    /// Creates a reply.
    public init(bundle: BundleID, path: String) {
        self.bundle = bundle
        self.path = path
    }
}
