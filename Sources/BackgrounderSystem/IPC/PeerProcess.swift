import CSandbox
package import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The process on the other end of a Unix socket, as the kernel says (`SO_PEERCRED`), pinned
/// by a pidfd so that what the daemon reads about it under /proc cannot belong to another
/// process that was given the same pid meanwhile.
///
/// The pidfd comes from `SO_PEERPIDFD` (Linux 6.5): the process that connected, even when it
/// has exited since. On older kernels it falls back to the process's start time read right
/// after the connect: a reused pid has a later one. That leaves a window between the connect
/// and that read in which the pid could be reused (docs/PROTOCOL.md, "Who may send what").
/// Without either, the peer cannot be verified and is never taken for a person.
package final class PeerProcess: Sendable {
    /// The process id at connect time.
    package let pid: Int32
    /// Its user and group at connect time.
    package let uid: UInt32
    package let gid: UInt32
    /// A pidfd for the process, or -1 when the kernel has no `SO_PEERPIDFD`.
    private let pidfd: Int32
    /// The process's start time when there is no pidfd, or `nil` when it could not be read.
    private let startTicks: UInt64?

    /// `SO_PEERPIDFD` from <asm-generic/socket.h>, newer than Debian 12's headers.
    private static let peerPIDFDOption: Int32 = 77

    private init(pid: Int32, uid: UInt32, gid: UInt32, pidfd: Int32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.pidfd = pidfd
        self.startTicks = pidfd >= 0 ? nil : ProcessStat.read(pid)?.startTicks
    }

    deinit {
        if pidfd >= 0 { close(pidfd) }
    }

    /// `struct ucred` from <sys/socket.h>, which Glibc hides behind _GNU_SOURCE; the layout
    /// is three 32-bit fields.
    private struct UCred {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// The peer of a connected Unix socket descriptor.
    /// - Returns: The peer, or `nil` when the kernel does not say who it is.
    package static func of(descriptor: Int32) -> PeerProcess? {
        var credentials = UCred()
        var length = socklen_t(MemoryLayout<UCred>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        var pidfd: Int32 = -1
        length = socklen_t(MemoryLayout<Int32>.size)
        let pinned = getsockopt(descriptor, SOL_SOCKET, peerPIDFDOption, &pidfd, &length) == 0
        return make(credentials, pidfd: pinned ? pidfd : nil)
    }

    /// The peer of a connected Unix socket channel, or `nil` when the kernel does not say.
    package static func of(_ channel: any Channel) -> EventLoopFuture<PeerProcess?> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let credentials: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return credentials.flatMap { credentials in
            let pidfd: EventLoopFuture<Int32> = provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerPIDFDOption))
            return pidfd.map { Optional($0) }.recover { _ in nil }.map { pidfd in
                make(credentials, pidfd: pidfd)
            }
        }.recover { _ in nil }
    }

    /// A process another party named (a D-Bus peer's `ProcessID`, as the bus daemon read it
    /// from its own socket), pinned by `pidfd_open` as soon as it is named. Between the bus's
    /// read and this call the process could exit and its pid be reused: the uid, when the
    /// other party gave one, must still match.
    /// - Parameters:
    ///   - pid: The process id.
    ///   - uid: Its uid as the other party read it, or `nil` to take the process's own (a
    ///     bus that admitted the peer anonymously knows only its pid).
    /// - Returns: The process, or `nil` when it is gone or is no longer of `uid`.
    package static func of(pid: Int32, uid: UInt32?) -> PeerProcess? {
        guard pid > 0 else { return nil }
        let pidfd = bg_pidfd_open(pid)
        var status = stat()
        guard stat("/proc/\(pid)", &status) == 0, uid.map({ $0 == status.st_uid }) ?? true else {
            if pidfd >= 0 { close(pidfd) }
            return nil
        }
        return make(UCred(pid: pid, uid: status.st_uid, gid: status.st_gid), pidfd: pidfd >= 0 ? pidfd : nil)
    }

    private static func make(_ credentials: UCred, pidfd: Int32?) -> PeerProcess? {
        guard credentials.pid > 0 else {
            if let pidfd, pidfd >= 0 { close(pidfd) }
            return nil
        }
        let pidfd = pidfd ?? -1
        if pidfd >= 0 { _ = fcntl(pidfd, F_SETFD, FD_CLOEXEC) }
        return PeerProcess(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, pidfd: pidfd)
    }

    /// Whether the process is still running, so that what was just read under /proc/PID was
    /// its own. Unverifiable counts as gone.
    package var isAlive: Bool {
        guard pidfd >= 0 else {
            guard let startTicks else { return false }
            return ProcessStat.read(pid)?.startTicks == startTicks
        }
        // A pidfd polls readable once its process has exited.
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }
}
