package import BackgrounderCore
package import Foundation
package import GRDB

/// Files and folders a person shared with an app (`bgctl share`), kept across restarts.
extension StateStore {
    /// The `sharedFile` table: one row per app and shared path, with the identity the file
    /// had when it was shared, so a file put in its place later is not taken for it.
    package static func createSharedFileTable(_ db: Database) throws {
        try db.create(table: "sharedFile") { table in
            table.column("bundleIdentifier", .text).notNull()
            table.column("path", .text).notNull()
            table.column("device", .integer).notNull()
            table.column("inode", .integer).notNull()
            table.column("directory", .boolean).notNull()
            table.column("sharedAt", .double).notNull()
            table.primaryKey(["bundleIdentifier", "path"])
        }
    }

    /// Marks the rows shared through the music library permission (`media-library`), so a
    /// denial takes back exactly those, wherever the music folder is by then.
    package static func addLibraryColumn(_ db: Database) throws {
        try db.alter(table: "sharedFile") { table in
            table.add(column: "library", .boolean).notNull().defaults(to: false)
        }
    }

    /// Every app's shared files, by bundle identifier.
    package func sharedFiles() throws -> [BundleID: [SharedFileGrant]] {
        try database.read { db in
            var grants: [BundleID: [SharedFileGrant]] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT * FROM sharedFile ORDER BY bundleIdentifier, path") {
                grants[row["bundleIdentifier"] as BundleID, default: []].append(
                    SharedFileGrant(
                        path: row["path"], identity: FileIdentity(stored: row["device"], row["inode"]),
                        directory: row["directory"], library: row["library"]))
            }
            return grants
        }
    }

    /// Records grants for an app (replacing one for the same path).
    package func share(_ grants: [SharedFileGrant], with identifier: BundleID, at time: Date) throws {
        try write { db in
            for grant in grants {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO sharedFile
                        (bundleIdentifier, path, device, inode, directory, sharedAt, library)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        identifier, grant.path, Int64(bitPattern: grant.identity.device),
                        Int64(bitPattern: grant.identity.inode), grant.directory, time.timeIntervalSince1970,
                        grant.library,
                    ])
            }
        }
    }

    /// Takes back grants: those for `paths`, or all of the app's when `paths` is empty.
    package func unshare(_ paths: [String], from identifier: BundleID) throws {
        try write { db in
            if paths.isEmpty {
                try db.execute(sql: "DELETE FROM sharedFile WHERE bundleIdentifier = ?", arguments: [identifier])
            }
            for path in paths {
                try db.execute(
                    sql: "DELETE FROM sharedFile WHERE bundleIdentifier = ? AND path = ?",
                    arguments: [identifier, path])
            }
        }
    }
}
