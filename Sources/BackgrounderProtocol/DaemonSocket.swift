#if canImport(Glibc)
    import Glibc
#endif

/// Opening a connection to the daemon's Unix socket, shared by every client (`bgctl`'s
/// `ControlClient`, BackgroundKit's app connection), so all of them tell "no daemon" apart
/// from other failures the same way.
public enum DaemonSocket {
    /// The longest path a Unix socket can have, in bytes (`sun_path` less its NUL).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Connects a close-on-exec stream socket to `path`.
    /// - Parameter path: The daemon's socket.
    /// - Returns: The connected descriptor; the caller closes it.
    /// - Throws: ``ControlClientError``: `.daemonNotRunning` when nothing listens there,
    ///   `.notASocket` when something else is there, `.socketPathTooLong`, or `.system` with
    ///   the failing call and errno.
    public static func connect(to path: String) throws(ControlClientError) -> Int32 {
        // Close-on-exec from the start: an app the daemon launched may itself launch helpers,
        // and a process that forks on another thread meanwhile must not inherit it either (a
        // child holding a copy keeps the connection open after its owner closed it).
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .system("socket", errno) }
        guard case (var address, let length)? = unixSocketAddress(path) else {
            close(descriptor)
            throw .socketPathTooLong(path)
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, length) }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            if code == ENOENT || code == ECONNREFUSED {
                // A path that is there but is no socket is a typo, not a stopped daemon.
                var info = stat()
                if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFSOCK {
                    let kind = info.st_mode & S_IFMT
                    throw .notASocket(
                        path, kind == S_IFDIR ? "a directory" : kind == S_IFREG ? "a regular file" : "a device or pipe")
                }
                throw .daemonNotRunning(path)
            }
            throw .system("connect to \(path)", code)
        }
        return descriptor
    }
}
