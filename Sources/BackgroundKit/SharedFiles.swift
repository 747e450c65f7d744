import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Files and folders a person shared with the app (`bgctl share`, or a sample's command line
/// that shares what the person names), read where they lie, as a document a person picks
/// for an iOS app: the app's sandbox reaches only its own directories, so each shared file
/// is opened by the daemon and its descriptor handed over.
///
/// Every call tries the path directly first (the app's own files, or anything its sandbox
/// lets it read) and asks the daemon only when the system refuses it (`EACCES`, `EPERM`).
public enum SharedFiles {
    /// What a path is.
    public enum Kind: Sendable, Hashable {
        case file
        case directory
    }

    /// Opens a file or folder for reading.
    /// - Parameter path: An absolute path.
    /// - Returns: A descriptor the caller owns (close-on-exec, non-blocking: a FIFO is not
    ///   waited on).
    /// - Throws: ``SharedFileError`` with the system's reason, or the daemon's when the path
    ///   is not shared or cannot be opened for the app.
    public static func open(_ path: String) throws(SharedFileError) -> Int32 {
        try openWithKind(path).descriptor
    }

    /// What is at a path: a file, a folder, or `nil` when nothing is there.
    /// - Throws: ``SharedFileError`` when the path may not be read (not shared, or refused).
    public static func kind(atPath path: String) throws(SharedFileError) -> Kind? {
        var info = stat()
        if stat(path, &info) == 0 { return info.st_mode & S_IFMT == S_IFDIR ? .directory : .file }
        guard isRefusal(errno) else { return nil }
        let (descriptor, kind) = try openWithKind(path)
        close(descriptor)
        return kind
    }

    /// The names in a folder, `.` and `..` left out.
    /// - Throws: ``SharedFileError`` when it cannot be listed.
    public static func contentsOfDirectory(atPath path: String) throws(SharedFileError) -> [String] {
        let (descriptor, kind) = try openWithKind(path)
        guard kind == .directory, let directory = fdopendir(descriptor) else {
            close(descriptor)
            throw SharedFileError(path: path, reason: "not a folder", systemError: ENOTDIR)
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A file's bytes (a playlist, a small document).
    /// - Throws: ``SharedFileError`` when it cannot be opened or read.
    public static func contents(atPath path: String) throws(SharedFileError) -> [UInt8] {
        let descriptor = try open(path)
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw SharedFileError(path: path, reason: String(cString: strerror(errno)), systemError: errno)
            }
            if count == 0 { return bytes }
            bytes += buffer[..<count]
        }
    }

    private static func isRefusal(_ error: Int32) -> Bool { error == EACCES || error == EPERM }

    private static func openWithKind(_ path: String) throws(SharedFileError) -> (descriptor: Int32, kind: Kind) {
        let direct = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if direct >= 0 {
            var info = stat()
            fstat(direct, &info)
            return (direct, info.st_mode & S_IFMT == S_IFDIR ? .directory : .file)
        }
        let error = errno
        guard isRefusal(error) else {
            throw SharedFileError(path: path, reason: String(cString: strerror(error)), systemError: error)
        }
        return try fromDaemon(path)
    }

    /// `OPEN PATH` on the daemon's descriptor socket (docs/PROTOCOL.md).
    private static func fromDaemon(_ path: String) throws(SharedFileError) -> (descriptor: Int32, kind: Kind) {
        let socketPath = DefaultPaths.descriptorSocket(forControlSocket: DefaultPaths.socket)
        let socket: Int32
        do {
            socket = try DaemonSocket.connect(to: socketPath)
        } catch {
            throw SharedFileError(
                path: path, reason: "cannot reach the daemon to open it: \(error)", systemError: EACCES)
        }
        defer { close(socket) }
        let line = Array("OPEN \(path)\n".utf8)
        let sent = line.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == line.count else {
            throw SharedFileError(
                path: path, reason: "cannot ask the daemon: \(String(cString: strerror(errno)))", systemError: EACCES)
        }
        let bytes: [UInt8]
        let descriptors: [Int32]
        do {
            (bytes, descriptors) = try DescriptorPassing.receive(
                over: socket, maximumBytes: 8192, maximumDescriptors: 1)
        } catch {
            throw SharedFileError(path: path, reason: "no answer from the daemon: \(error)", systemError: EACCES)
        }
        let answer = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let descriptor = descriptors.first, answer == "OK file" || answer == "OK directory" else {
            descriptors.forEach { _ = close($0) }
            let reason = answer.hasPrefix("ERR ") ? String(answer.dropFirst(4)) : "no answer from the daemon"
            throw SharedFileError(path: path, reason: reason, systemError: EACCES)
        }
        return (descriptor, answer == "OK directory" ? .directory : .file)
    }
}

/// Why a file could not be read through ``SharedFiles``.
public struct SharedFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path asked for.
    public var path: String
    /// The system's reason, or the daemon's (`not shared with ...`).
    public var reason: String
    /// The system's error number; `EACCES` when the daemon refused.
    public var systemError: Int32

    /// Creates an error.
    public init(path: String, reason: String, systemError: Int32) {
        self.path = path
        self.reason = reason
        self.systemError = systemError
    }

    public var description: String { reason.hasPrefix(path) ? reason : "\(path): \(reason)" }
}
