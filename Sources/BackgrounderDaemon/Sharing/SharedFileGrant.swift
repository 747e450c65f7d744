import BackgrounderProtocol

/// A file or folder a person shared with an app: its path as resolved when shared, and the
/// identity it had then.
struct SharedFileGrant: Sendable, Hashable {
    /// The absolute path, its links resolved.
    let path: String
    /// The file's identity when it was shared: a file moved into its place since is not it.
    let identity: FileIdentity
    /// Whether it is a folder, whose contents at any depth are shared with it.
    let directory: Bool

    /// Whether `path` is this grant's, or lies inside its folder; the rest of the path below
    /// the grant (empty for the grant itself).
    func covers(_ requested: String) -> [String]? {
        if requested == path { return [] }
        guard directory else { return nil }
        let prefix = path == "/" ? "/" : path + "/"
        guard requested.hasPrefix(prefix) else { return nil }
        return requested.dropFirst(prefix.count).split(separator: "/").map(String.init)
    }

    /// As the protocol lists it.
    var listed: SharedFile { SharedFile(path: path, directory: directory) }
}
