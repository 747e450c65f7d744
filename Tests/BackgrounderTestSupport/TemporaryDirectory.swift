import Foundation

/// A scratch directory under /tmp, removed on `remove()`.
///
/// Paths stay short because a Unix socket path must fit in 108 bytes.
public struct TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates a fresh directory with mode 0755: a root daemon's apps run under uids of their
    /// own and must pass through it to their bundles, data directories and the audio socket.
    /// - Parameter prefix: A word that says which test made it, for anyone looking in /tmp.
    public init(prefix: String = "bg") throws {
        let unique = UUID().uuidString.prefix(8).lowercased()
        path = "/tmp/\(prefix)-\(unique)"
        try FileManager.default.createDirectory(
            atPath: path,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755]
        )
    }

    /// A path inside the directory.
    public func appending(_ component: String) -> String {
        path + "/" + component
    }

    /// Removes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
