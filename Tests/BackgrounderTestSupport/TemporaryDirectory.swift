import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Removes the directory and everything in it, first unmounting what is mounted below it
    /// (an app's data volume a killed daemon left, a test's tmpfs), deepest first.
    public func remove() {
        for mountPoint in Self.mountPoints(under: path) { umount2(mountPoint, Int32(MNT_DETACH)) }
        // A file that another thread removes meanwhile (a server unlinking its socket as it
        // stops, as AudioSocketServer does after stop() returns) fails one pass on that entry
        // and leaves the rest: another pass removes it. Seen once in CI's leftover check.
        for _ in 0..<3 where FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Mount points at or below `path`, from /proc/self/mountinfo, deepest first.
    static func mountPoints(under path: String) -> [String] {
        MountTable.mountPoints().map { $0.replacingOccurrences(of: "\\040", with: " ") }
            .filter { $0 == path || $0.hasPrefix(path + "/") }
            .sorted { $0.count > $1.count }
    }
}
