package import BackgrounderCore
package import BackgrounderProtocol
package import Foundation
package import GRDB

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's durable state: one SQLite database in WAL mode under the state directory,
/// with every commit synced to disk (`synchronous=FULL`), so a daemon killed with SIGKILL or a
/// machine that loses power restarts with everything it acknowledged
/// (docs/decisions/0008-state-durability.md).
package final class StateStore: Sendable {
    /// The database file.
    package let path: String
    package let database: DatabasePool
    /// How writes have been going, for `bgctl status`.
    package let health = StorageHealthRecorder()
    /// Space kept for the daemon's own commits when apps fill the file system.
    package let reserve: StorageReserve

    /// Where a corrupt database found at start was moved, and what SQLite said about it;
    /// `nil` when the database opened as it was.
    package let setAside: (path: String, reason: String)?

    /// Opens (creating if needed) the store and brings its schema up to date.
    ///
    /// A database SQLite finds corrupt (not a database at all, or failing `quick_check`) is
    /// moved aside, with its write-ahead log, as `backgrounder.sqlite.corrupt-TIME`
    /// (``setAside``), and a fresh one is made: the daemon starts, without what the old file
    /// held, and the file stays for a person to recover from. Any other failure (permissions,
    /// a full disk, I/O errors) is thrown and moves nothing.
    /// - Parameters:
    ///   - directory: The state directory; created with mode 0700.
    ///   - synchronous: How hard a commit waits for the disk; `.full` unless a benchmark
    ///     compares the two.
    ///   - reserveBytes: Space set aside for the daemon's commits (``StorageReserve``); 0 for none.
    ///   - now: When the store is opened, for the name of a file moved aside.
    /// - Throws: ``DaemonError`` naming the directory or file when it cannot be used.
    package init(
        directory: String, synchronous: StoreSynchronous = .full, reserveBytes: Int = 0, now: Date = Date()
    ) throws {
        try PrivateDirectory.prepare(directory, purpose: "--state-dir")
        path = directory + "/backgrounder.sqlite"
        reserve = StorageReserve(directory: directory, bytes: reserveBytes)
        do {
            database = try Self.open(path, synchronous: synchronous)
            setAside = nil
        } catch let corrupt as CorruptDatabase {
            let aside = try Self.moveAside(path, at: now)
            database = try Self.open(path, synchronous: synchronous)
            setAside = (aside, corrupt.reason)
        }
    }

    /// SQLite's word that the file is not a sound database.
    private struct CorruptDatabase: Error {
        var reason: String
    }

    private static func open(_ path: String, synchronous: StoreSynchronous) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.label = "backgrounder"
        // A second daemon on the same state directory would wait here, not corrupt anything.
        configuration.busyMode = .timeout(5)
        do {
            let database = try DatabasePool(path: path, configuration: configuration)
            // After the pool is open, not in prepareDatabase: GRDB's WAL set-up runs after
            // that and sets NORMAL on the writer, the only connection that commits.
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue)")
            }
            // Garbage in a page SQLite has not read yet surfaces here, not at some later write.
            let check = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else {
                throw CorruptDatabase(reason: "quick_check: " + check.prefix(3).joined(separator: "; "))
            }
            try StateStore.migrator.migrate(database)
            return database
        } catch let error as DatabaseError
            where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.extendedResultCode.primaryResultCode)
        {
            throw CorruptDatabase(reason: StorageHealthRecorder.describe(error))
        } catch let corrupt as CorruptDatabase {
            throw corrupt
        } catch {
            throw DaemonError(.stateStore, path: path, "cannot open the state database: \(error)")
        }
    }

    /// Renames the database to `PATH.corrupt-TIME` (UTC), its write-ahead log beside it (a
    /// log left under the old name would be replayed into the new database), and removes
    /// its shared-memory index.
    /// - Returns: The new name of the database.
    private static func moveAside(_ path: String, at now: Date) throws -> String {
        // 20261125T101500Z
        var stamp = now.formatted(.iso8601)
        stamp.removeAll { $0 == "-" || $0 == ":" }
        var aside = path + ".corrupt-" + stamp
        var attempt = 1
        while FileManager.default.fileExists(atPath: aside) {
            attempt += 1
            aside = path + ".corrupt-" + stamp + "-\(attempt)"
        }
        guard rename(path, aside) == 0 else {
            throw DaemonError(
                .stateStore, path: path,
                "the state database is corrupt and cannot be moved aside to \(aside): \(String(cString: strerror(errno)))"
            )
        }
        if FileManager.default.fileExists(atPath: path + "-wal") {
            guard rename(path + "-wal", aside + "-wal") == 0 else {
                throw DaemonError(
                    .stateStore, path: path + "-wal",
                    "cannot move the corrupt database's write-ahead log aside: \(String(cString: strerror(errno)))")
            }
        }
        unlink(path + "-shm")
        return aside
    }

    /// The writer connection's `synchronous` setting as SQLite reports it (0 OFF, 1 NORMAL,
    /// 2 FULL, 3 EXTRA).
    package func synchronousSetting() throws -> Int {
        try database.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// How writes have been going and what is kept in reserve, for `bgctl status`.
    package var storageStatus: StorageStatus {
        var status = health.status
        let kept = reserve.status
        status.reserveBytes = kept.heldBytes
        status.reserveReleases = kept.releases
        status.reserveNote = kept.note
        return status
    }

    /// Runs one write transaction and records how it went in ``health``, so a full disk shows
    /// in `bgctl status` whichever write met it first. On a full disk the ``reserve`` is given
    /// up and the write tried once more: an app filling the file system does not stop the
    /// daemon from committing.
    package func write<T>(_ updates: (Database) throws -> T) throws -> T {
        while true {
            do {
                let result = try database.write(updates)
                health.succeeded()
                reserve.retakeIfRoom()
                return result
            } catch let error as DatabaseError {
                health.failed(error, path: path)
                // Given up once at most: a second full disk has no reserve left to give.
                guard error.resultCode == .SQLITE_FULL, reserve.release() else { throw error }
            }
        }
    }

    /// The schema, one migration per change; never edit a shipped migration.
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: runs and bundles") { db in
            try db.create(table: "daemonRun") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("pid", .integer).notNull()
                table.column("release", .text).notNull()
                table.column("startedAt", .double).notNull()
                table.column("stoppedAt", .double)
            }
            try db.create(table: "bundle") { table in
                table.primaryKey("bundleIdentifier", .text)
                table.column("path", .text).notNull()
                table.column("name", .text).notNull()
                table.column("firstSeenAt", .double).notNull()
                table.column("lastSeenAt", .double).notNull()
                // Set by `bgctl quit`: a force-quit app is not relaunched for most events.
                table.column("forceQuit", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v2: location", migrate: createLocationTables)
        migrator.registerMigration("v3: app users", migrate: createAppUserTable)
        migrator.registerMigration("v4: scheduling", migrate: createSchedulingTables)
        migrator.registerMigration("v5: transfers", migrate: createTransferTable)
        migrator.registerMigration("v6: app processes", migrate: createProcessTable)
        migrator.registerMigration("v7: notifications", migrate: createNotificationTable)
        migrator.registerMigration("v8: retired identities", migrate: createRetirementTables)
        migrator.registerMigration("v9: shared files", migrate: createSharedFileTable)
        migrator.registerMigration("v10: library shares", migrate: addLibraryColumn)
        return migrator
    }

    /// The applied migrations' names, newest last.
    package func appliedMigrations() throws -> [String] {
        try database.read { db in try StateStore.migrator.appliedMigrations(db) }
    }

    /// Records that a daemon run began.
    /// - Returns: The run's id and whether the previous run ended without a clean stop.
    package func beginRun(pid: Int32, at time: Date) throws -> (id: Int64, previousEndedUncleanly: Bool) {
        try write { db in
            let unclean =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT stoppedAt IS NULL FROM daemonRun ORDER BY id DESC LIMIT 1"
                ) ?? false
            try db.execute(
                sql: "INSERT INTO daemonRun (pid, release, startedAt) VALUES (?, ?, ?)",
                arguments: [pid, BackgrounderVersion.release, time.timeIntervalSince1970]
            )
            return (db.lastInsertedRowID, unclean)
        }
    }

    /// Records a clean stop of a run.
    package func endRun(id: Int64, at time: Date) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE daemonRun SET stoppedAt = ? WHERE id = ?",
                arguments: [time.timeIntervalSince1970, id]
            )
        }
    }

    /// Remembers the bundles that loaded, keeping first-seen times and force-quit flags.
    /// Where each identifier was last loaded from.
    package func recordedBundlePaths() throws -> [BundleID: String] {
        try database.read { db in
            Dictionary(
                try Row.fetchAll(db, sql: "SELECT bundleIdentifier, path FROM bundle").map {
                    ($0["bundleIdentifier"] as BundleID, $0["path"] as String)
                }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Records that `identifier` is the bundle at `path` from now on (a person adopted it).
    package func recordBundlePath(_ identifier: BundleID, path: String) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE bundle SET path = ? WHERE bundleIdentifier = ?", arguments: [path, identifier])
        }
    }

    package func recordLoaded(_ bundles: [ValidatedBundle], at time: Date) throws {
        try write { db in
            for bundle in bundles {
                try db.execute(
                    sql: """
                        INSERT INTO bundle (bundleIdentifier, path, name, firstSeenAt, lastSeenAt)
                        VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT(bundleIdentifier) DO UPDATE SET
                            path = excluded.path, name = excluded.name, lastSeenAt = excluded.lastSeenAt
                        """,
                    arguments: [
                        bundle.manifest.bundleIdentifier, bundle.path, bundle.manifest.name,
                        time.timeIntervalSince1970, time.timeIntervalSince1970,
                    ]
                )
            }
        }
    }

    /// Remembers or clears a force quit (`bgctl quit` sets it; `bgctl open` clears it).
    package func setForceQuit(_ bundleIdentifier: BundleID, _ forceQuit: Bool) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE bundle SET forceQuit = ? WHERE bundleIdentifier = ?",
                arguments: [forceQuit, bundleIdentifier]
            )
        }
    }

    /// Bundles a person force-quit.
    package func forceQuitBundles() throws -> Set<BundleID> {
        try database.read { db in
            Set(try BundleID.fetchAll(db, sql: "SELECT bundleIdentifier FROM bundle WHERE forceQuit"))
        }
    }

    /// Identifiers of every bundle the store has ever seen.
    package func knownBundleIdentifiers() throws -> [BundleID] {
        try database.read { db in
            try BundleID.fetchAll(db, sql: "SELECT bundleIdentifier FROM bundle ORDER BY bundleIdentifier")
        }
    }
}
