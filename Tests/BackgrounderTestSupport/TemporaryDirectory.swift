import Foundation

/// A scratch directory under ``root``, removed on `remove()`.
///
/// Paths stay short because a Unix socket path must fit in 108 bytes.
public struct TemporaryDirectory: Sendable {
    /// Where every scratch file of the suite goes: `$BACKGROUNDER_TEST_SCRATCH` (scripts/test.sh
    /// sets it to a directory of the run's own, and checks it is empty afterwards, so a test that
    /// leaves files behind is named), else /tmp.
    public static let root: String = {
        guard let root = ProcessInfo.processInfo.environment["BACKGROUNDER_TEST_SCRATCH"], !root.isEmpty else {
            return "/tmp"
        }
        try? FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        return root
    }()

    /// A path for a scratch file of its own under ``root``: `PREFIX-XXXXXXXX` plus `suffix`.
    public static func uniquePath(_ prefix: String, suffix: String = "") -> String {
        "\(root)/\(prefix)-\(UUID().uuidString.prefix(8).lowercased())\(suffix)"
    }

    /// The directory's absolute path.
    public let path: String

    /// Creates a fresh directory with mode 0755: a root daemon's apps run under uids of their
    /// own and must pass through it to their bundles, data directories and the audio socket.
    /// - Parameter prefix: A word that says which test made it, for anyone looking in /tmp.
    public init(prefix: String = "bg") throws {
        path = Self.uniquePath(prefix)
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
