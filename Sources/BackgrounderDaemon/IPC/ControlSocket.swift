import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Prepares the control socket's path: a private directory, and no stale socket file left
/// by a daemon that was killed, without stealing the socket of one that still runs.
enum ControlSocket {
    /// - Parameter directoryMode: The socket directory's mode when it is created here (0711
    ///   when apps under uids of their own pass through it to the audio socket beside).
    /// - Returns: The socket's directory.
    static func prepare(_ path: String, directoryMode: mode_t) throws -> String {
        let parent = (path as NSString).deletingLastPathComponent
        let directory = parent.isEmpty ? "." : parent
        try PrivateDirectory.prepare(directory, purpose: "socket", mode: directoryMode)
        // systemd made and holds the socket (socket activation): it is ours, not stale.
        if SocketActivation.passedDescriptor != nil { return directory }
        var info = stat()
        guard lstat(path, &info) == 0 else { return directory }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw DaemonError(.socket, path: path, "exists and is not a socket; remove it or choose another --socket")
        }
        let probe = Result { () throws(ControlClientError) in try ControlClient(socketPath: path, timeout: .seconds(2))
        }
        switch probe {
        case .success:
            throw DaemonError(.socket, path: path, "another backgrounderd is already serving this socket")
        case .failure(.daemonNotRunning):
            // Left by a daemon that died: nobody listens, so it is ours to replace.
            unlink(path)
        case .failure(let error):
            // Something answered but not like a daemon; leave it alone.
            throw DaemonError(.socket, path: path, "in use by something that is not a running backgrounderd (\(error))")
        }
        return directory
    }
}
