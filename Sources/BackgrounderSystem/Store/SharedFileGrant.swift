package import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file or folder a person shared with an app: its path as resolved when shared, and the
/// identity it had then.
package struct SharedFileGrant: Sendable, Hashable {
    /// The absolute path, its links resolved.
    package let path: String
    /// The file's identity when it was shared: a file moved into its place since is not it.
    package let identity: FileIdentity
    /// Whether it is a folder, whose contents at any depth are shared with it.
    package let directory: Bool
    /// Whether it is the person's music folder, shared because they allowed the app into
    /// their music library (and taken back when they deny it), rather than named by them.
    package var library = false

    /// Whether `path` is this grant's, or lies inside its folder; the rest of the path below
    /// the grant (empty for the grant itself).
    package func covers(_ requested: String) -> [String]? {
        if requested == path { return [] }
        guard directory else { return nil }
        let prefix = path == "/" ? "/" : path + "/"
        guard requested.hasPrefix(prefix) else { return nil }
        return requested.dropFirst(prefix.count).split(separator: "/").map(String.init)
    }

    /// As the protocol lists it.
    package var listed: SharedFile { SharedFile(path: path, directory: directory) }
}

extension SharedFileGrant {
    /// Opens a path as a person shares it (`SHARE`) and describes what it is: with the person's
    /// authority, following no link an app may have planted, its links resolved.
    package static func opening(_ path: String, appDirectories: Set<FileIdentity>) throws(ProtocolError)
        -> SharedFileGrant
    {
        let descriptor: Int32
        do throws(DaemonError) {
            descriptor = try FileImport.openSource(path, appDirectories: appDirectories)
        } catch {
            throw ProtocolError(.notFound, "SHARE: \(error)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, let identity = FileIdentity(descriptor) else {
            throw ProtocolError(.failed, "SHARE: \(path): cannot stat: \(String(cString: strerror(errno)))")
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFDIR else {
            throw ProtocolError(.badRequest, "SHARE: \(path): not a regular file or folder")
        }
        // The kernel's name for what was opened: the path with every link resolved.
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(descriptor)", &target, target.count - 1)
        guard length > 0 else {
            throw ProtocolError(.failed, "SHARE: \(path): cannot resolve: \(String(cString: strerror(errno)))")
        }
        let resolved = String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return SharedFileGrant(path: resolved, identity: identity, directory: kind == S_IFDIR)
    }
}
