public import BackgrounderCore

/// `IMPORT`: a person gives an app files (an album for the music player, episodes another app
/// downloaded), as a person shares files into an iOS app's container. The daemon copies them
/// into the app's data directory itself: a person never copies into a directory the app
/// controls, where a link the app planted would lead a root `cp` to overwrite the system's
/// files.
public struct ImportRequest: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// Absolute paths of the files or directories to copy, each into the app's data directory
    /// under its own name.
    public var sources: [String]

    /// Creates a request.
    public init(bundle: BundleID, sources: [String]) {
        self.bundle = bundle
        self.sources = sources
    }
}

/// `IMPORTED`: what an import copied, and what it left out and why.
public struct ImportResult: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// The app's data directory.
    public var directory: String
    /// Where each source went (absolute paths), in the order given.
    public var destinations: [String]
    /// Regular files copied.
    public var files: Int
    /// Bytes copied.
    public var bytes: Int
    /// What was not copied, and why (a symbolic link inside a source, a name already in the
    /// app's directory, a FIFO...).
    public var skipped: [ImportSkip]

    /// Creates a result.
    public init(
        bundle: BundleID, directory: String, destinations: [String], files: Int, bytes: Int, skipped: [ImportSkip]
    ) {
        self.bundle = bundle
        self.directory = directory
        self.destinations = destinations
        self.files = files
        self.bytes = bytes
        self.skipped = skipped
    }
}

/// One thing an import left out.
public struct ImportSkip: Sendable, Hashable, Codable {
    /// The source path (or the destination, when the destination was the problem).
    public var path: String
    /// Why, in a sentence.
    public var reason: String

    /// Creates an entry.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
