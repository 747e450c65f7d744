package import BackgrounderCore
import Foundation
package import GRDB

/// The uid each app runs under when the daemon is root, kept so that an app's data
/// directory has the same owner on every launch and after every restart.
extension StateStore {
    /// The `appUser` table: one id per bundle identifier, never reused for another.
    package static func createAppUserTable(_ db: Database) throws {
        try db.create(table: "appUser") { table in
            table.primaryKey("bundleIdentifier", .text)
            table.column("uid", .integer).notNull().unique()
            table.column("assignedAt", .double).notNull()
        }
    }

    /// The app's uid (also its gid), assigned on first use from `range`.
    /// - Parameters:
    ///   - bundleIdentifier: The app.
    ///   - range: Where new ids come from.
    ///   - isTaken: Whether the system already uses an id (a passwd or group entry).
    /// - Throws: ``DaemonError`` when the range is exhausted, or the store's error.
    package func appUser(
        for bundleIdentifier: BundleID,
        in range: AppUserRange,
        isTaken: (UInt32) -> Bool
    ) throws -> UInt32 {
        try database.write { db in
            if let uid = try Int64.fetchOne(
                db, sql: "SELECT uid FROM appUser WHERE bundleIdentifier = ?", arguments: [bundleIdentifier])
            {
                return UInt32(uid)
            }
            let assigned = Set(try Int64.fetchAll(db, sql: "SELECT uid FROM appUser").map { UInt32($0) })
            guard let uid = range.firstFree(assigned: assigned, isTaken: isTaken) else {
                throw DaemonError(
                    .stateStore, path: path,
                    "every app uid of \(range.description) is assigned; none left for \(bundleIdentifier)")
            }
            try db.execute(
                sql: "INSERT INTO appUser (bundleIdentifier, uid, assignedAt) VALUES (?, ?, ?)",
                arguments: [bundleIdentifier, Int64(uid), Date().timeIntervalSince1970]
            )
            return uid
        }
    }
}
