import BackgrounderProtocol
import Foundation
import GRDB
import Synchronization

/// How hard a commit waits for the disk: SQLite's `synchronous` for a database in WAL mode.
public enum StoreSynchronous: String, Sendable, CaseIterable {
    /// The WAL is synced only at checkpoints: a power loss can undo the last commits.
    case normal = "NORMAL"
    /// The WAL is synced at every commit: what was committed survives a power loss.
    case full = "FULL"
}

/// The store's last write failure and whether writes work now, kept behind a lock so
/// `bgctl status` reads it on the event loop while the app manager writes.
final class StorageHealthRecorder: Sendable {
    private struct State {
        var failing = false
        var lastError: String?
        var lastErrorAt: Date?
        var unstoredEvents = 0
    }

    private let state = Mutex(State())

    /// A write committed: storage works (again); the last failure stays on record.
    func succeeded() {
        state.withLock { $0.failing = false }
    }

    /// A write failed: what SQLite said, and when.
    func failed(_ error: DatabaseError, at time: Date = Date()) {
        let description = Self.describe(error)
        state.withLock {
            $0.failing = true
            $0.lastError = description
            $0.lastErrorAt = time
        }
    }

    /// Events that could not be queued because their write failed.
    func lost(events count: Int) {
        state.withLock { $0.unstoredEvents += count }
    }

    /// What `bgctl status` shows.
    var status: StorageStatus {
        state.withLock {
            StorageStatus(
                state: $0.failing ? .failing : .ok, lastError: $0.lastError,
                lastErrorAt: $0.lastErrorAt?.timeIntervalSince1970, unstoredEvents: $0.unstoredEvents)
        }
    }

    /// SQLite's words without the statement (GRDB's description appends the whole SQL).
    static func describe(_ error: DatabaseError) -> String {
        let code = error.extendedResultCode
        let name = code.primaryResultCode == .SQLITE_FULL ? " (disk full)" : ""
        return "SQLite error \(code.rawValue)\(name): \(error.message ?? "no message")"
    }
}
