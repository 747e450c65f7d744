package import BackgrounderCore

#if canImport(Glibc)
    import Glibc
#endif

/// What a bundle's files were when it was validated: device, inode, size, mode, owner and
/// change times of its `Info.plist` and its executable (the link itself and what it names).
///
/// Validation reads the files at one moment and the daemon launches later; comparing
/// fingerprints at launch tells whether anything was replaced, rewritten or re-permissioned
/// in between, even where the manifest still parses to the same thing (a new executable).
package struct BundleFingerprint: Sendable, Hashable {
    private struct FileIdentity: Sendable, Hashable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var mode: UInt32
        var owner: UInt32
        var modified: Int64
        var changed: Int64
    }

    private var files: [FileIdentity?]

    /// Takes a bundle's fingerprint now.
    package init(of bundle: ValidatedBundle) {
        let plist = bundle.path + "/Info.plist"
        files = [
            Self.identity(plist, follow: false),
            Self.identity(bundle.executablePath, follow: false),
            Self.identity(bundle.executablePath, follow: true),
        ]
    }

    private static func identity(_ path: String, follow: Bool) -> FileIdentity? {
        var facts = stat()
        guard (follow ? stat(path, &facts) : lstat(path, &facts)) == 0 else { return nil }
        return FileIdentity(
            device: UInt64(facts.st_dev), inode: UInt64(facts.st_ino), size: Int64(facts.st_size),
            mode: UInt32(facts.st_mode), owner: UInt32(facts.st_uid),
            modified: Int64(facts.st_mtim.tv_sec) * 1_000_000_000 + Int64(facts.st_mtim.tv_nsec),
            changed: Int64(facts.st_ctim.tv_sec) * 1_000_000_000 + Int64(facts.st_ctim.tv_nsec))
    }
}
