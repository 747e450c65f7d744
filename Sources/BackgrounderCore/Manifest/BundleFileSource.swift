public import Foundation

/// What `lstat(2)` says about one file, reduced to what bundle validation needs.
public struct FileFacts: Sendable, Hashable {
    /// The kind of file, not following a final symbolic link.
    public enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, other
    }

    /// The kind of file.
    public var kind: Kind
    /// Permission bits (`st_mode & 0o7777`).
    public var permissions: UInt32
    /// The owner's user id.
    public var owner: UInt32
    /// The size in bytes.
    public var size: Int64

    /// Creates a set of facts.
    public init(kind: Kind, permissions: UInt32, owner: UInt32, size: Int64) {
        self.kind = kind
        self.permissions = permissions
        self.owner = owner
        self.size = size
    }

    /// Whether a user other than the owner may write it (sshd's StrictModes test).
    public var isWritableByGroupOrOthers: Bool { permissions & 0o022 != 0 }
    /// Whether anyone may execute it.
    public var isExecutable: Bool { permissions & 0o111 != 0 }
}

/// Read-only access to the files of one bundle directory.
///
/// The validator in Core makes every decision; an implementation only reports what is on
/// disk. The daemon, `bgctl validate` and the bundle plugin share the POSIX one in
/// `BackgrounderBundles`; Core's tests use an in-memory one.
public protocol BundleFileSource: Sendable {
    /// The bundle directory as it was named.
    var bundlePath: String { get }

    /// Facts about a path inside the bundle, not following a final symbolic link.
    /// - Parameter relativePath: A path relative to the bundle; `""` is the bundle itself.
    /// - Returns: The facts, or `nil` when nothing is there.
    func facts(of relativePath: String) -> FileFacts?

    /// Facts about a path inside the bundle after following every symbolic link.
    /// - Parameter relativePath: A path relative to the bundle.
    /// - Returns: The facts, or `nil` when nothing is there or a link dangles.
    func resolvedFacts(of relativePath: String) -> FileFacts?

    /// The canonical absolute path (as `realpath(3)`) of a path inside the bundle.
    /// - Parameter relativePath: A path relative to the bundle; `""` is the bundle itself.
    /// - Returns: The resolved path, or `nil` when it cannot be resolved.
    func canonicalPath(of relativePath: String) -> String?

    /// The contents of a regular file inside the bundle.
    /// - Parameters:
    ///   - relativePath: A path relative to the bundle.
    ///   - limit: The most bytes the caller accepts.
    /// - Returns: The bytes.
    /// - Throws: A description of why the file could not be read.
    func contents(of relativePath: String, limit: Int) throws -> Data
}
