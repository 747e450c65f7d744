import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Creates or checks a directory only its owner may enter (0700), as the socket and state
/// directories must be: anyone who can reach the socket can drive the daemon.
enum PrivateDirectory {
    static func prepare(_ path: String, purpose: String) throws {
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw DaemonError(
                .directory, path: path, "cannot create the \(purpose) directory: \(error.localizedDescription)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw DaemonError(
                .directory, path: path, "cannot stat the \(purpose) directory: \(String(cString: strerror(errno)))")
        }
        guard info.st_uid == geteuid() else {
            throw DaemonError(
                .directory, path: path, "the \(purpose) directory belongs to uid \(info.st_uid), not to us")
        }
        if info.st_mode & 0o077 != 0 {
            // A directory we created ourselves with a looser umask, or one a user made: tighten it.
            guard chmod(path, 0o700) == 0 else {
                throw DaemonError(.directory, path: path, "cannot make the \(purpose) directory private (0700)")
            }
        }
    }
}
