public import BackgrounderCore

/// `SHARE`: a person lets an app read files or folders of theirs where they are, as the
/// desktop's document portal does (and as a person picks a document for an iOS app): the app
/// reads exactly those, through descriptors the daemon opens for it (`OPEN PATH` on the
/// descriptor socket, docs/PROTOCOL.md), never through a wider sandbox. A shared folder
/// shares what is in it, at any depth, and nothing outside it.
public struct ShareRequest: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// Absolute paths of the files or folders to share.
    public var paths: [String]

    /// Creates a request.
    public init(bundle: BundleID, paths: [String]) {
        self.bundle = bundle
        self.paths = paths
    }
}

/// `UNSHARE`: a person takes back files or folders shared with an app.
public struct UnshareRequest: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// The shared paths to take back, as `SHARED` lists them; empty for all of them.
    public var paths: [String]

    /// Creates a request.
    public init(bundle: BundleID, paths: [String] = []) {
        self.bundle = bundle
        self.paths = paths
    }
}

/// `SHARED`: what a person has shared with an app (the reply to `SHARE`, `UNSHARE` and
/// `SHARES`).
public struct SharedFileList: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// Each shared file or folder, by path.
    public var files: [SharedFile]

    /// Creates a list.
    public init(bundle: BundleID, files: [SharedFile]) {
        self.bundle = bundle
        self.files = files
    }
}

/// One file or folder shared with an app.
public struct SharedFile: Sendable, Hashable, Codable {
    /// Its absolute path, with the links in it resolved when it was shared.
    public var path: String
    /// Whether it is a folder (everything in it is shared).
    public var directory: Bool

    /// Creates an entry.
    public init(path: String, directory: Bool) {
        self.path = path
        self.directory = directory
    }
}
