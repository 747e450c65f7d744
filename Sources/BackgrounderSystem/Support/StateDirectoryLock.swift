import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One daemon per state directory: an exclusive `flock` on `STATE_DIR/backgrounderd.lock`,
/// held for the daemon's life, with the holder's pid written in the file.
///
/// Two daemons on one state directory would share one database, one set of app cgroups and
/// one set of app logs, each ending the other's apps as leftovers; a second `--socket` does
/// not make that safe. `flock` goes with the descriptor, so the lock is released when the
/// daemon exits however it exits (a crash or SIGKILL included), and a stale file left
/// behind never blocks the next start.
package final class StateDirectoryLock {
    /// The lock file.
    package let path: String
    private let descriptor: Int32

    /// The lock file's name inside the state directory.
    package static let fileName = "backgrounderd.lock"

    /// Takes the lock, or says who holds it.
    /// - Parameter directory: The state directory, which exists.
    /// - Throws: ``DaemonError`` naming the holder's pid when another daemon holds it, or why
    ///   the file cannot be opened.
    package init(directory: String) throws {
        path = directory + "/" + Self.fileName
        // Close-on-exec: an app must not inherit the lock and keep it after the daemon is gone.
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            throw DaemonError(.directory, path: path, "cannot open the lock file: \(String(cString: strerror(errno)))")
        }
        let result = retryingInterrupted { flock(descriptor, LOCK_EX | LOCK_NB) }
        guard result == 0 else {
            let failure = errno
            let holder = Self.holder(descriptor)
            close(descriptor)
            guard failure == EWOULDBLOCK else {
                throw DaemonError(.directory, path: path, "cannot lock: \(String(cString: strerror(failure)))")
            }
            throw DaemonError(
                .directory, path: path,
                "another backgrounderd\(holder.map { " (pid \($0))" } ?? "") is using the state directory \(directory); stop it or choose another --state-dir"
            )
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The pid the holder wrote, if it wrote one yet.
    private static func holder(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
