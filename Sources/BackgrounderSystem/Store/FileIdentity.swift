import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file's identity on this machine, whatever path reaches it.
package struct FileIdentity: Hashable, Sendable {
    /// `O_PATH` from <fcntl.h>, which Glibc shows only with _GNU_SOURCE: a descriptor that
    /// names a file without opening it, and does not follow a final link with `O_NOFOLLOW`.
    package static let pathOnly: Int32 = 0o10_000_000

    package let device: UInt64
    package let inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// An identity as the store keeps it (SQLite integers are signed).
    package init(stored device: Int64, _ inode: Int64) {
        self.init(device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode))
    }

    /// The identity of the file open as `descriptor`, or `nil` when it cannot be read.
    package init?(_ descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// The identities of the directories at `paths` that exist.
    package static func of(_ paths: [String]) -> Set<FileIdentity> {
        Set(
            paths.compactMap { path in
                let descriptor = open(path, Self.pathOnly | O_DIRECTORY | O_CLOEXEC)
                guard descriptor >= 0 else { return nil }
                defer { close(descriptor) }
                return FileIdentity(descriptor)
            })
    }
}
