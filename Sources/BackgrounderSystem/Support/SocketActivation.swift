import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's socket activation (sd_listen_fds(3)) without libsystemd: a started-by-socket
/// daemon finds its listening socket as descriptor 3 when `$LISTEN_PID` is its pid and
/// `$LISTEN_FDS` is at least 1.
package enum SocketActivation {
    /// The first passed descriptor (3), or `nil` when the daemon was not socket-activated;
    /// read once, at first use.
    package static let passedDescriptor: Int32? = listeningDescriptor()

    /// Reads the variables, and removes them so no app launched later inherits them.
    private static func listeningDescriptor() -> Int32? {
        let environment = ProcessInfo.processInfo.environment
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
            let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1
        else { return nil }
        let descriptor: Int32 = 3
        // Close-on-exec: apps get their own descriptor 3, never the control socket.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }
}
