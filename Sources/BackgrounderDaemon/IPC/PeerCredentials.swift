import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Who is on the other end of a Unix socket, as the kernel says (`SO_PEERCRED`), so the
/// daemon never has to believe what a client claims about itself.
struct PeerCredentials: Sendable, Hashable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32

    /// `struct ucred` from <sys/socket.h>, which Glibc hides behind _GNU_SOURCE; the layout
    /// is three 32-bit fields.
    fileprivate struct UCred {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// Reads the credentials of a connected Unix socket channel.
    static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(PeerCredentialsUnavailable())
        }
        return provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        ).map { (credentials: UCred) in
            PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        }
    }
}

struct PeerCredentialsUnavailable: Error {}

extension PeerCredentials {
    /// Reads the credentials of a connected Unix socket descriptor.
    /// - Returns: The credentials, or `nil` when the kernel does not say.
    static func of(descriptor: Int32) -> PeerCredentials? {
        var credentials = UCred()
        var length = socklen_t(MemoryLayout<UCred>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }
}
