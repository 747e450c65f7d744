import BackgrounderCore
import Foundation
import GRDB

/// The daemon's durable state: one SQLite database in WAL mode under the state directory,
/// with every commit synced to disk (`synchronous=FULL`), so a daemon killed with SIGKILL or a
/// machine that loses power restarts with everything it acknowledged
/// (docs/decisions/0008-state-durability.md).
final class StateStore: Sendable {
    /// The database file.
    let path: String
    let database: DatabasePool
    /// How writes have been going, for `bgctl status`.
    let health = StorageHealthRecorder()

    /// Opens (creating if needed) the store and brings its schema up to date.
    /// - Parameters:
    ///   - directory: The state directory; created with mode 0700.
    ///   - synchronous: How hard a commit waits for the disk; `.full` unless a benchmark
    ///     compares the two.
    /// - Throws: ``DaemonError`` naming the directory or file when it cannot be used.
    init(directory: String, synchronous: StoreSynchronous = .full) throws {
        try PrivateDirectory.prepare(directory, purpose: "--state-dir")
        path = directory + "/backgrounder.sqlite"
        var configuration = Configuration()
        configuration.label = "backgrounder"
        // A second daemon on the same state directory would wait here, not corrupt anything.
        configuration.busyMode = .timeout(5)
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            // After the pool is open, not in prepareDatabase: GRDB's WAL set-up runs after
            // that and sets NORMAL on the writer, the only connection that commits.
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue)")
            }
            try StateStore.migrator.migrate(database)
        } catch {
            throw DaemonError(.stateStore, path: path, "cannot open the state database: \(error)")
        }
    }

    /// The writer connection's `synchronous` setting as SQLite reports it (0 OFF, 1 NORMAL,
    /// 2 FULL, 3 EXTRA).
    func synchronousSetting() throws -> Int {
        try database.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Runs one write transaction and records how it went in ``health``, so a full disk shows
    /// in `bgctl status` whichever write met it first.
    func write<T>(_ updates: (Database) throws -> T) throws -> T {
        do {
            let result = try database.write(updates)
            health.succeeded()
            return result
        } catch let error as DatabaseError {
            health.failed(error)
            throw error
        }
    }

    /// The schema, one migration per change; never edit a shipped migration.
    static var migrator: DatabaseMigrator {
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
        return migrator
    }

    /// The applied migrations' names, newest last.
    func appliedMigrations() throws -> [String] {
        try database.read { db in try StateStore.migrator.appliedMigrations(db) }
    }

    /// Records that a daemon run began.
    /// - Returns: The run's id and whether the previous run ended without a clean stop.
    func beginRun(pid: Int32, at time: Date) throws -> (id: Int64, previousEndedUncleanly: Bool) {
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
    func endRun(id: Int64, at time: Date) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE daemonRun SET stoppedAt = ? WHERE id = ?",
                arguments: [time.timeIntervalSince1970, id]
            )
        }
    }

    /// Remembers the bundles that loaded, keeping first-seen times and force-quit flags.
    /// Where each identifier was last loaded from.
    func recordedBundlePaths() throws -> [String: String] {
        try database.read { db in
            Dictionary(
                try Row.fetchAll(db, sql: "SELECT bundleIdentifier, path FROM bundle").map {
                    ($0["bundleIdentifier"] as String, $0["path"] as String)
                }, uniquingKeysWith: { first, _ in first })
        }
    }

    func recordLoaded(_ bundles: [ValidatedBundle], at time: Date) throws {
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
    func setForceQuit(_ bundleIdentifier: String, _ forceQuit: Bool) throws {
        try write { db in
            try db.execute(
                sql: "UPDATE bundle SET forceQuit = ? WHERE bundleIdentifier = ?",
                arguments: [forceQuit, bundleIdentifier]
            )
        }
    }

    /// Bundles a person force-quit.
    func forceQuitBundles() throws -> Set<String> {
        try database.read { db in
            Set(try String.fetchAll(db, sql: "SELECT bundleIdentifier FROM bundle WHERE forceQuit"))
        }
    }

    /// Identifiers of every bundle the store has ever seen.
    func knownBundleIdentifiers() throws -> [String] {
        try database.read { db in
            try String.fetchAll(db, sql: "SELECT bundleIdentifier FROM bundle ORDER BY bundleIdentifier")
        }
    }
}
