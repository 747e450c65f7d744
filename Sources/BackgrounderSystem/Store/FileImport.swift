package import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Copies a person's files into an app's data directory, a directory the app controls: every
/// step there is relative to a descriptor and refuses to follow a symbolic link (`O_NOFOLLOW`,
/// `O_EXCL`), so a link the app planted never leads the copy (root, for a root daemon)
/// outside the app's directory, and nothing that is already there is overwritten. Each file
/// and directory made is given to the app's uid with `fchown` on its own descriptor.
///
/// The sources are the person's: a link given as a source is followed (it is the person's
/// choice), a link inside a source directory is not. Files are opened `O_NONBLOCK` and must be
/// regular files or directories, so a FIFO or a device is skipped rather than waited on.
package struct FileImport {
    /// The uid and gid the copies belong to, or `nil` to keep the daemon's (apps that run
    /// under the daemon's own uid).
    package let owner: (uid: UInt32, gid: UInt32)?
    package private(set) var files = 0
    package private(set) var bytes = 0
    package private(set) var skipped: [ImportSkip] = []

    package init(owner: (uid: UInt32, gid: UInt32)?) {
        self.owner = owner
    }

    /// The name a source goes under: its last path component.
    /// - Returns: The name, or `nil` for a path without one (`/`, `..`).
    package static func name(of source: String) -> String? {
        let name = source.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty || name == "." || name == ".." ? nil : name
    }

    /// Copies one source (a file or a directory, with everything in it) into `directory`.
    /// - Parameters:
    ///   - source: The source, opened with ``openSource(_:appDirectories:)``.
    ///   - path: Its absolute path, whose last component names the copy.
    ///   - directory: A descriptor of the app's data directory.
    ///   - destination: The path the copy gets, for messages.
    package mutating func copy(_ source: Int32, from path: String, into directory: Int32, as destination: String) {
        guard let name = Self.name(of: path) else { return skip(path, "names no file or directory to import") }
        copy(source, path: path, named: Array(name.utf8CString), into: directory, destination: destination)
    }

    /// `O_PATH`: a descriptor that names a file without opening it.
    package static let pathOnly = FileIdentity.pathOnly

    /// A name as the file system has it: bytes, not necessarily UTF-8, ending in NUL.
    package typealias Name = [CChar]

    private mutating func copy(
        _ source: Int32, path: String, named name: Name, into directory: Int32, destination: String
    ) {
        var info = stat()
        guard fstat(source, &info) == 0 else { return skip(path, "cannot stat: \(String(cString: strerror(errno)))") }
        switch info.st_mode & S_IFMT {
        case S_IFREG: copyFile(source, path: path, named: name, into: directory, destination: destination)
        case S_IFDIR: copyDirectory(source, path: path, named: name, into: directory, destination: destination)
        default: skip(path, "not a regular file or directory")
        }
    }

    private mutating func copyFile(
        _ source: Int32, path: String, named name: Name, into directory: Int32, destination: String
    ) {
        // O_EXCL: a name that exists (a file, or a link the app planted) is never opened.
        let target = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard target >= 0 else {
            let reason =
                errno == EEXIST
                ? "already in the app's directory; not replaced" : "cannot create: \(String(cString: strerror(errno)))"
            return skip(destination, reason)
        }
        defer { close(target) }
        if let owner { fchown(target, owner.uid, owner.gid) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var copied = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                unlinkat(directory, name, 0)
                return skip(path, "cannot read: \(reason)")
            }
            guard Self.writeAll(target, buffer[..<count]) else {
                let reason = String(cString: strerror(errno))
                unlinkat(directory, name, 0)
                return skip(destination, "cannot write: \(reason)")
            }
            copied += count
        }
        files += 1
        bytes += copied
    }

    private mutating func copyDirectory(
        _ source: Int32, path: String, named name: Name, into directory: Int32, destination: String
    ) {
        let made = mkdirat(directory, name, 0o700) == 0
        guard made || errno == EEXIST else {
            return skip(destination, "cannot create: \(String(cString: strerror(errno)))")
        }
        // An existing name must be a directory of the app's own, not a link to one elsewhere.
        let target = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard target >= 0 else {
            return skip(
                destination, "is not a directory in the app's directory (a symbolic link or a file); not followed")
        }
        defer { close(target) }
        if made, let owner { fchown(target, owner.uid, owner.gid) }
        for entry in Self.entries(of: source) {
            let text = String(decoding: entry.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let child = openat(source, entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard child >= 0 else {
                let reason =
                    errno == ELOOP
                    ? "a symbolic link; not followed" : "cannot open: \(String(cString: strerror(errno)))"
                skip(path + "/" + text, reason)
                continue
            }
            copy(child, path: path + "/" + text, named: entry, into: target, destination: destination + "/" + text)
            close(child)
        }
    }

    /// A directory's entries, sorted by their bytes, without `.` and `..`.
    private static func entries(of directory: Int32) -> [Name] {
        let copy = dup(directory)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        var names: [Name] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                bytes.prefix { $0 != 0 }.map { CChar(bitPattern: $0) } + [0]
            }
            if name != [46, 0] && name != [46, 46, 0] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    private mutating func skip(_ path: String, _ reason: String) {
        skipped.append(ImportSkip(path: path, reason: reason))
    }
}
