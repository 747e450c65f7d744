import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Space set aside on the state directory's file system for the daemon's own commits.
///
/// Apps' data directories are in the state directory, so an app that fills its own fills the
/// file system the database is on; without a reserve the daemon could no longer record a
/// grant, an event or a launched process. The reserve is a file of allocated blocks
/// (`STATE/reserve`, `posix_fallocate`): when SQLite reports the disk full, the store gives
/// it up and tries the write once more (``release()``), and takes it back after a later
/// commit finds room for it again (``retakeIfRoom()``). The app that filled the disk gets
/// ENOSPC, as at any full disk; the daemon's log and `bgctl status` name the release.
package final class StorageReserve: Sendable {
    /// The reserve file.
    package let path: String
    /// Its size in bytes (`--state-reserve`); 0 keeps none.
    package let bytes: Int
    private let state: Locked<State>

    private struct State {
        var held = false
        var releases = 0
        var note: String?
    }

    /// The default: room for thousands of commits, little against any disk.
    package static let defaultBytes = 16 << 20

    /// Takes the reserve in `directory`.
    package init(directory: String, bytes: Int) {
        path = directory + "/reserve"
        self.bytes = bytes
        state = Locked(State())
        if bytes > 0 {
            take()
        } else {
            unlink(path)
            state.withLock { $0.note = "no reserve (--state-reserve 0)" }
        }
    }

    /// Whether the reserve's blocks are held now.
    package var isHeld: Bool { state.withLock { $0.held } }

    /// For `bgctl status`: the bytes held (0 once given up), how often it was given up, and why
    /// there is none.
    package var status: (heldBytes: Int, releases: Int, note: String?) {
        state.withLock { ($0.held ? bytes : 0, $0.releases, $0.note) }
    }

    /// Gives the blocks back to the file system so the daemon's next commit finds room.
    /// - Returns: Whether anything was given back.
    package func release() -> Bool {
        state.withLock { state in
            guard state.held else { return false }
            unlink(path)
            state.held = false
            state.releases += 1
            state.note = "given up to commit on a full disk; taken back once there is room"
            return true
        }
    }

    /// After a commit: takes the reserve back once the file system has room for it and as
    /// much again, so an app still filling it does not get the blocks back at once.
    package func retakeIfRoom() {
        guard bytes > 0, !isHeld else { return }
        var stats = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        guard statvfs(directory, &stats) == 0,
            UInt64(stats.f_bavail) * UInt64(stats.f_frsize) >= 2 * UInt64(bytes)
        else { return }
        take()
    }

    private func take() {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            state.withLock { $0.note = "no reserve: cannot create \(path): \(reason)" }
            return
        }
        defer { close(descriptor) }
        let result = posix_fallocate(descriptor, 0, off_t(bytes))
        state.withLock {
            if result == 0 {
                $0.held = true
                $0.note = nil
            } else {
                $0.note = "no reserve: cannot allocate \(bytes) bytes in \(path): \(String(cString: strerror(result)))"
            }
        }
        if result != 0 { unlink(path) }
    }
}
