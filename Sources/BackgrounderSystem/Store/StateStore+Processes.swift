package import BackgrounderCore
import Foundation
package import GRDB

/// The app processes a run of the daemon started and has not seen end, so that the next run
/// can take them over (a restart, an upgrade, a crash) instead of losing them.
extension StateStore {
    /// One process as the store keeps it.
    package struct ProcessRecord: Sendable, Hashable {
        /// The app.
        package var bundleIdentifier: BundleID
        /// The process the daemon started; it leads its session and process group.
        package var pid: Int32
        /// Its start time in clock ticks after boot: with the pid, it names this process
        /// and no later one that reuses the pid.
        package var startTicks: UInt64
        /// The boot it ran in: a pid and start time mean nothing after a reboot.
        package var bootID: String
        /// Its cgroup, or `nil` under the signals mechanism.
        package var cgroupPath: String?
        /// The uid it runs as.
        package var uid: UInt32
        /// Why it was launched.
        package var launchReason: LaunchReason
        /// Whether it was suspended (frozen) when last recorded.
        package var suspended: Bool
        /// Whether the person had it in front.
        package var foreground: Bool
    }

    /// The `appProcess` table: one row per running app.
    package static func createProcessTable(_ db: Database) throws {
        try db.create(table: "appProcess") { table in
            table.primaryKey("bundleIdentifier", .text)
            table.column("pid", .integer).notNull()
            table.column("startTicks", .integer).notNull()
            table.column("bootID", .text).notNull()
            table.column("cgroupPath", .text)
            table.column("uid", .integer).notNull()
            table.column("launchReason", .text).notNull()
            table.column("suspended", .boolean).notNull()
            table.column("foreground", .boolean).notNull()
        }
    }

    /// Records a process, or its new state.
    package func recordProcess(_ record: ProcessRecord) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO appProcess
                        (bundleIdentifier, pid, startTicks, bootID, cgroupPath, uid, launchReason, suspended, foreground)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    record.bundleIdentifier, record.pid, Int64(bitPattern: record.startTicks), record.bootID,
                    record.cgroupPath, Int64(record.uid), record.launchReason.rawValue, record.suspended,
                    record.foreground,
                ])
        }
    }

    /// Forgets an app's process: it ended (only the row of that pid, so a late report of an
    /// older process cannot erase a newer one).
    package func forgetProcess(_ bundleIdentifier: BundleID, pid: Int32) throws {
        try write { db in
            try db.execute(
                sql: "DELETE FROM appProcess WHERE bundleIdentifier = ? AND pid = ?",
                arguments: [bundleIdentifier, pid])
        }
    }

    /// Every process an earlier run left recorded.
    package func recordedProcesses() throws -> [ProcessRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM appProcess ORDER BY bundleIdentifier").compactMap { row in
                let reason: String = row["launchReason"]
                let ticks: Int64 = row["startTicks"]
                let uid: Int64 = row["uid"]
                return ProcessRecord(
                    bundleIdentifier: row["bundleIdentifier"], pid: row["pid"],
                    startTicks: UInt64(bitPattern: ticks), bootID: row["bootID"], cgroupPath: row["cgroupPath"],
                    uid: UInt32(truncatingIfNeeded: uid), launchReason: LaunchReason(rawValue: reason) ?? .user,
                    suspended: row["suspended"], foreground: row["foreground"])
            }
        }
    }
}
