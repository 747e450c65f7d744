import BackgrounderCore
package import BackgrounderProtocol
package import Foundation
package import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// How hard a commit waits for the disk: SQLite's `synchronous` for a database in WAL mode.
public enum StoreSynchronous: String, Sendable, CaseIterable {
    /// The WAL is synced only at checkpoints: a power loss can undo the last commits.
    case normal = "NORMAL"
    /// The WAL is synced at every commit: what was committed survives a power loss.
    case full = "FULL"
}

/// The store's last write failure and whether writes work now, kept behind a lock so
/// `bgctl status` reads it on the event loop while the app manager writes.
package final class StorageHealthRecorder: Sendable {
    private struct State {
        var failing = false
        var lastError: String?
        var lastErrorAt: Date?
        var unstoredEvents = 0
    }

    private let state = Locked(State())

    /// A write committed: storage works (again); the last failure stays on record.
    package func succeeded() {
        state.withLock { $0.failing = false }
    }

    /// A write failed: what SQLite said, about which file, and when.
    package func failed(_ error: DatabaseError, path: String? = nil, at time: Date = Date()) {
        let description = Self.describe(error, path: path)
        state.withLock {
            $0.failing = true
            $0.lastError = description
            $0.lastErrorAt = time
        }
    }

    /// Events that could not be queued because their write failed.
    package func lost(events count: Int) {
        state.withLock { $0.unstoredEvents += count }
    }

    /// What `bgctl status` shows.
    package var status: StorageStatus {
        state.withLock {
            StorageStatus(
                state: $0.failing ? .failing : .ok, lastError: $0.lastError,
                lastErrorAt: $0.lastErrorAt?.timeIntervalSince1970, unstoredEvents: $0.unstoredEvents)
        }
    }

    /// SQLite's words without the statement (GRDB's description appends the whole SQL), and
    /// the database file when known. SQLite reports a write that failed with ENOSPC as
    /// SQLITE_FULL; the space left beside the file is added, as the kernel counts it.
    package static func describe(_ error: DatabaseError, path: String? = nil) -> String {
        let code = error.extendedResultCode
        var name = ""
        if code.primaryResultCode == .SQLITE_FULL {
            name = " (disk full, ENOSPC" + (path.flatMap(spaceLeft).map { "; \($0)" } ?? "") + ")"
        }
        return "SQLite error \(code.rawValue)\(name): \(error.message ?? "no message")"
            + (path.map { ", writing \($0)" } ?? "")
    }

    /// How much the filesystem holding `path` still has for an unprivileged writer.
    private static func spaceLeft(_ path: String) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        var stats = statvfs()
        guard statvfs(directory, &stats) == 0 else { return nil }
        let left = UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
        let size = UInt64(stats.f_blocks) * UInt64(stats.f_frsize)
        return "\(left) of \(size) bytes left on the filesystem of \(directory)"
    }
}
