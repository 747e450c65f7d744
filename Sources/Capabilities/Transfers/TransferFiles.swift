import BackgrounderAppCore
package import BackgrounderCore
import BackgrounderSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where transfers keep their bytes, and how a finished download reaches its app.
///
/// Partial downloads live where no app can reach them: an app that could swap a partial file
/// for a link would have the daemon write wherever it points. That is the daemon's own
/// directory (`STATE/transfers`, 0700), or, when the app's data directory is a volume of its
/// own (a root daemon's quota, ADR 0016), a directory of the daemon's inside that volume
/// (`.backgrounder-downloads`, 0700, like the file system's `lost+found`), so that finishing
/// a download is a rename and not a copy of the whole file across file systems. That
/// directory is opened without following a link and used only when it is the daemon's and
/// closed to everyone else: one the app made, or a link in its place, is passed over for
/// the daemon's own directory. A finished file is given to the app's uid and renamed into
/// the app's data directory, through descriptors opened without following links, so an
/// app's own links inside its directory cannot redirect it either.
package struct TransferFiles: Sendable {
    /// The daemon's directory of partial files.
    package let directory: String
    /// The app's data directory (made at its first launch, or here).
    package let dataDirectory: @Sendable (BundleID) throws -> String
    /// The uid (and gid) an app runs as, or `nil` for the daemon's own.
    package let identity: @Sendable (BundleID) throws -> UInt32?

    /// The name of the daemon's directory of partial files inside an app's data volume.
    package static let volumeDirectoryName = ".backgrounder-downloads"

    /// A directory of partial files, open.
    private struct Partials {
        var descriptor: Int32
        var path: String
        func close() { Glibc.close(descriptor) }
    }

    /// The name of a transfer's partial file in its directory.
    private static func partialName(_ id: Int) -> String { "\(id).part" }

    /// Opens the directory that holds the app's partial files: inside its data directory
    /// when that is another file system than the daemon's (see the type's notes), else the
    /// daemon's own.
    private func partials(of app: BundleID) -> Partials? {
        if let inVolume = partialsInVolume(of: app) { return inVolume }
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        return descriptor >= 0 ? Partials(descriptor: descriptor, path: directory) : nil
    }

    private func partialsInVolume(of app: BundleID) -> Partials? {
        guard let data = try? dataDirectory(app) else { return nil }
        let dataDescriptor = open(data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dataDescriptor >= 0 else { return nil }
        defer { close(dataDescriptor) }
        var dataInfo = stat()
        var ownInfo = stat()
        guard fstat(dataDescriptor, &dataInfo) == 0, stat(directory, &ownInfo) == 0, dataInfo.st_dev != ownInfo.st_dev
        else { return nil }
        let name = Self.volumeDirectoryName
        // Made 0700 (the umask takes nothing more away); EEXIST is checked below.
        _ = mkdirat(dataDescriptor, name, 0o700)
        let descriptor = openat(dataDescriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        // The app owns the directory it is in and could have made this name first: only the
        // daemon's own, closed to all others, holds what the daemon writes.
        guard fstat(descriptor, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 == 0,
            info.st_dev == dataInfo.st_dev
        else {
            close(descriptor)
            return nil
        }
        return Partials(descriptor: descriptor, path: data + "/" + name)
    }

    /// Where a transfer's partial file is (tests put one there).
    package func partialPath(_ id: Int, of app: BundleID) -> String {
        guard let partials = partials(of: app) else { return directory + "/" + Self.partialName(id) }
        defer { partials.close() }
        return partials.path + "/" + Self.partialName(id)
    }

    /// Bytes in a transfer's partial file, or 0 when there is none.
    package func partialLength(_ id: Int, of app: BundleID) -> Int64 {
        guard let partials = partials(of: app) else { return 0 }
        defer { partials.close() }
        var info = stat()
        guard fstatat(partials.descriptor, Self.partialName(id), &info, AT_SYMLINK_NOFOLLOW) == 0,
            info.st_mode & S_IFMT == S_IFREG
        else { return 0 }
        return Int64(info.st_size)
    }

    /// Opens a transfer's partial file for writing at `offset`, cutting off anything after it
    /// (a restart passes 0).
    /// - Returns: The descriptor, which the caller closes, and the file's path for messages.
    package func openPartial(_ id: Int, of app: BundleID, at offset: Int64) throws(TransferFileError) -> (
        descriptor: Int32, path: String
    ) {
        guard let partials = partials(of: app) else {
            throw TransferFileError(path: directory, "cannot open the directory of partial downloads", errno)
        }
        defer { partials.close() }
        let path = partials.path + "/" + Self.partialName(id)
        let descriptor = openat(
            partials.descriptor, Self.partialName(id), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw TransferFileError(path: path, "cannot open", errno) }
        // Only what lies past the offset is cut: a truncation, even to the size the file
        // already has, makes ext4 write the whole file back when it is closed (its
        // `auto_da_alloc`), which for a new download was a synchronous flush of all of it.
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = errno
            close(descriptor)
            throw TransferFileError(path: path, "cannot read the size of", error)
        }
        guard Int64(info.st_size) <= offset || ftruncate(descriptor, off_t(offset)) == 0 else {
            let error = errno
            close(descriptor)
            throw TransferFileError(path: path, "cannot truncate", error)
        }
        return (descriptor, path)
    }

    /// Removes a transfer's partial file, wherever it is (the daemon's directory, or the app's
    /// volume).
    package func removePartial(_ id: Int, of app: BundleID) {
        unlink(directory + "/" + Self.partialName(id))
        guard let partials = partialsInVolume(of: app) else { return }
        unlinkat(partials.descriptor, Self.partialName(id), 0)
        partials.close()
    }

    /// Hands a finished download to its app: the file becomes the app's and moves into its
    /// data directory's `tmp/` as `CFNetworkDownload_ID.tmp`, as iOS names them.
    /// - Returns: The file's path in the app's data directory, and its size.
    package func deliver(_ id: Int, to app: BundleID) throws(TransferFileError) -> DeliveredDownload {
        guard let partials = partials(of: app) else {
            throw TransferFileError(path: directory, "cannot open the directory of partial downloads", errno)
        }
        defer { partials.close() }
        let part = Self.partialName(id)
        let source = partials.path + "/" + part
        let data: String
        let owner: UInt32?
        do {
            data = try dataDirectory(app)
            owner = try identity(app)
        } catch {
            throw TransferFileError(path: source, "cannot find \(app)'s data directory: \(error)", 0)
        }
        let dataDescriptor = open(data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dataDescriptor >= 0 else { throw TransferFileError(path: data, "cannot open", errno) }
        defer { close(dataDescriptor) }
        if mkdirat(dataDescriptor, "tmp", 0o700) != 0 && errno != EEXIST {
            throw TransferFileError(path: data + "/tmp", "cannot create", errno)
        }
        // The app owns tmp/ and may have put a link there: opening it must not follow one.
        let target = openat(dataDescriptor, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard target >= 0 else { throw TransferFileError(path: data + "/tmp", "cannot open (not a directory?)", errno) }
        defer { close(target) }
        var tmpInfo = stat()
        if let owner, fstat(target, &tmpInfo) == 0, tmpInfo.st_uid == 0 || tmpInfo.st_uid == getuid() {
            // Made just now by the daemon: the app's.
            fchown(target, owner, owner)
        }
        let file = openat(partials.descriptor, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { throw TransferFileError(path: source, "cannot open", errno) }
        defer { close(file) }
        if let owner, fchown(file, owner, owner) != 0 {
            throw TransferFileError(path: source, "cannot give it to uid \(owner)", errno)
        }
        // Its size from the descriptor already open, not a second lookup of the directory.
        var info = stat()
        guard fstat(file, &info) == 0 else { throw TransferFileError(path: source, "cannot read the size of", errno) }
        let name = "CFNetworkDownload_\(id).tmp"
        if renameat(partials.descriptor, part, target, name) != 0 {
            // The partial file could not be kept in the app's volume (a directory there that
            // is not the daemon's): the bytes are copied in, and count against it.
            guard errno == EXDEV else {
                throw TransferFileError(path: data + "/tmp/" + name, "cannot move the download here", errno)
            }
            try copy(file, into: target, name: name, owner: owner, path: data + "/tmp/" + name)
            unlinkat(partials.descriptor, part, 0)
        }
        return DeliveredDownload(location: data + "/tmp/" + name, bytes: Int64(info.st_size))
    }

    /// Copies an open file into a new file `name` in `directory`, made without following a
    /// link, owned by `owner`; removed again when the copy fails (a full volume).
    private func copy(
        _ file: Int32, into directory: Int32, name: String, owner: UInt32?, path: String
    ) throws(TransferFileError) {
        let copy = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard copy >= 0 else { throw TransferFileError(path: path, "cannot create", errno) }
        defer { close(copy) }
        if let owner { fchown(copy, owner, owner) }
        // The kernel copies from page cache to page cache; read and write are the fallback
        // where it cannot (a file system without splice support).
        var failure: Int32 = 0
        var copied = 0
        while true {
            let sent = sendfile(copy, file, nil, 1 << 30)
            if sent > 0 {
                copied += sent
                continue
            }
            if sent == 0 { return }
            let error = errno
            if error == EINTR { continue }
            guard copied == 0, error == EINVAL || error == ENOSYS else {
                // Read before the removal, which may set errno itself.
                unlinkat(directory, name, 0)
                throw TransferFileError(path: path, "cannot copy the download here", error)
            }
            break
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        copying: while true {
            let read = buffer.withUnsafeMutableBytes { Glibc.read(file, $0.baseAddress, $0.count) }
            if read == 0 { break }
            if read < 0 {
                if errno == EINTR { continue }
                failure = errno
                break
            }
            var offset = 0
            while offset < read {
                let written = buffer.withUnsafeBytes { write(copy, $0.baseAddress! + offset, read - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break copying
                }
                offset += written
            }
        }
        guard failure != 0 else { return }
        unlinkat(directory, name, 0)
        throw TransferFileError(path: path, "cannot copy the download here", failure)
    }

    /// Removes a delivered file the app left where it was put (it had to move it while it
    /// heard of it). The name is looked up in the app's `tmp/` without following links, so
    /// a link the app put there is removed, never what it points at.
    package func removeDelivered(_ id: Int, from app: BundleID) {
        guard let data = try? dataDirectory(app) else { return }
        let dataDescriptor = open(data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard dataDescriptor >= 0 else { return }
        defer { close(dataDescriptor) }
        let target = openat(dataDescriptor, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard target >= 0 else { return }
        defer { close(target) }
        unlinkat(target, "CFNetworkDownload_\(id).tmp", 0)
    }

    /// Creates a value from its parts.
    package init(
        directory: String, dataDirectory: @escaping @Sendable (BundleID) throws -> String,
        identity: @escaping @Sendable (BundleID) throws -> UInt32?
    ) {
        self.directory = directory
        self.dataDirectory = dataDirectory
        self.identity = identity
    }
}

/// A finished download moved to its app: where it is now, and its size.
package struct DeliveredDownload: Sendable {
    package var location: String
    package var bytes: Int64

    /// Moves a finished download into its app's data directory (``TransferFiles/deliver(_:to:)``).
    package static func deliver(_ id: Int, to app: BundleID, with files: TransferFiles) -> Result<
        DeliveredDownload, TransferFileError
    > {
        do {
            return .success(try files.deliver(id, to: app))
        } catch {
            return .failure(error)
        }
    }
}

/// A file a transfer could not read or write, with the path and the system's reason.
package struct TransferFileError: Error, CustomStringConvertible {
    package let path: String
    package let what: String
    package let code: Int32

    package init(path: String, _ what: String, _ code: Int32) {
        self.path = path
        self.what = what
        self.code = code
    }

    /// The disk is full (or the quota reached).
    package var isNoSpace: Bool { code == ENOSPC || code == EDQUOT }

    package var description: String {
        code == 0 ? "\(path): \(what)" : "\(path): \(what): \(String(cString: strerror(code)))"
    }
}
