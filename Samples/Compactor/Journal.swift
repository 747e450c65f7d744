import Foundation
import GRDB

/// The app's data: a journal of entries in SQLite, of which it keeps the newest few hundred.
/// Deleting the old ones leaves free pages in the file, which ``Compaction`` gives back.
final class Journal: Sendable {
    /// The bundle identifier, which names the data directory.
    static let bundleIdentifier = "org.backgrounder.samples.compactor"
    /// Entries kept after pruning.
    static let kept = 500
    /// Bytes of each entry's body.
    static let entryBytes = 1024
    /// Seconds a write waits for another connection's lock (a backup, a person's `sqlite3`
    /// shell) before it fails: compaction would rather wait than give up its turn, and a
    /// processing task's window is minutes long (the expiration handler still stops it after
    /// the step under way). 10 s once ran out on a loaded machine before the lock's holder let go.
    static let busyTimeout: TimeInterval = 60

    /// The database file.
    let path: String
    /// The connection.
    let queue: DatabaseQueue

    /// Opens (or creates) the journal.
    /// - Parameter path: The database file.
    /// - Throws: GRDB's error when the file cannot be opened or migrated.
    init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.prepareDatabase { db in
            // Incremental vacuum lets compaction give pages back a few at a time, so it can
            // stop between steps when the system wants its time back (a full VACUUM cannot).
            // It only takes effect on a database without tables; an older file is converted
            // below.
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(
                sql:
                    "CREATE TABLE IF NOT EXISTS entry (id INTEGER PRIMARY KEY, createdAt REAL NOT NULL, body BLOB NOT NULL)"
            )
            if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 {
                try db.execute(sql: "VACUUM")
            }
        }
    }

    /// What a session of use does: adds `count` entries and prunes all but the newest
    /// ``kept``.
    /// - Returns: How many were added and how many removed.
    @discardableResult
    func churn(adding count: Int = 2000, now: Date = Date()) throws -> (added: Int, removed: Int) {
        try queue.write { db in
            let insert = try db.makeStatement(sql: "INSERT INTO entry (createdAt, body) VALUES (?, randomblob(?))")
            for _ in 0..<count {
                try insert.execute(arguments: [now.timeIntervalSince1970, Self.entryBytes])
            }
            try db.execute(
                sql: "DELETE FROM entry WHERE id NOT IN (SELECT id FROM entry ORDER BY id DESC LIMIT ?)",
                arguments: [Self.kept])
            return (count, db.changesCount)
        }
    }

    /// Entries in the journal.
    func count() throws -> Int {
        try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM entry") ?? 0 }
    }

    /// The database's size now.
    func size() throws -> DatabaseSize {
        let (pageSize, pages, free) = try queue.read { db in
            (
                try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0,
                try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
                try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            )
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let bytes = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        return DatabaseSize(fileBytes: bytes, pageSize: pageSize, pages: pages, freePages: free)
    }

    /// Whether SQLite finds the file sound (`PRAGMA integrity_check`).
    func isIntact() throws -> Bool {
        try queue.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok"
    }
}
