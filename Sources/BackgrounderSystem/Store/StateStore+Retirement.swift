package import BackgrounderCore
package import Foundation
package import GRDB

/// Identities kept aside: an app whose bundle is gone and whose identifier another bundle
/// took. The newcomer starts fresh; what the removed app held waits here (its data under
/// `STATE/retired`) until a person says the newcomer is that app (`bgctl adopt-bundle`).
extension StateStore {
    /// The `retiredIdentity` and `retiredAuthorization` tables: one identity kept aside per
    /// identifier, with its grants as they were.
    package static func createRetirementTables(_ db: Database) throws {
        try db.create(table: "retiredIdentity") { table in
            table.primaryKey("bundleIdentifier", .text)
            // The bundle the identity kept aside was loaded from.
            table.column("path", .text).notNull()
            table.column("retiredAt", .double).notNull()
        }
        try db.create(table: "retiredAuthorization") { table in
            table.column("bundleIdentifier", .text).notNull()
            table.column("service", .text).notNull()
            table.column("level", .text).notNull()
            table.column("changedAt", .double).notNull()
            table.primaryKey(["bundleIdentifier", "service"])
        }
    }

    /// Every table that holds what an app asked the system for or was given, by bundle
    /// identifier: all of it belongs to the identity, and none of it passes to a newcomer.
    /// (`appUser` stays: the uid is the identifier's, and owns the data kept aside.)
    package static let identityTables = [
        "authorization", "locationSubscription", "monitoredRegion", "locationEvent", "notification",
        "fetchHistory", "taskRequest", "pushToken", "pushBudget", "transfer", "appProcess", "sharedFile",
    ]

    /// Keeps the removed app's identity aside and records the claimant as the app, in one
    /// transaction: its grants move to `retiredAuthorization` (replacing an identity kept
    /// aside earlier), everything else it held is deleted.
    /// - Returns: Whether this call retired it; `false` when the store no longer names
    ///   `claim.previous` for the identifier (a reload that ran first did it).
    package func retire(_ claim: BundleClaim, at time: Date) throws -> Bool {
        try write { db in
            let recorded = try String.fetchOne(
                db, sql: "SELECT path FROM bundle WHERE bundleIdentifier = ?", arguments: [claim.identifier])
            guard recorded == claim.previous else { return false }
            try Self.keepAside(claim.identifier, loadedFrom: claim.previous, at: time, db)
            try db.execute(
                sql: "UPDATE bundle SET path = ?, forceQuit = 0 WHERE bundleIdentifier = ?",
                arguments: [claim.claimant, claim.identifier])
            return true
        }
    }

    /// Exchanges the identity kept aside for the current one (`bgctl adopt-bundle`): the
    /// kept grants become the app's, and the current ones (with the bundle at `currentPath`)
    /// are kept aside in their place, so a second adoption undoes the first.
    /// - Returns: The path the restored identity was loaded from, or `nil` when none is kept.
    package func exchangeRetired(_ identifier: BundleID, currentPath: String, at time: Date) throws -> String? {
        try write { db in
            guard
                let previous = try String.fetchOne(
                    db, sql: "SELECT path FROM retiredIdentity WHERE bundleIdentifier = ?", arguments: [identifier])
            else { return nil }
            let kept = try Row.fetchAll(
                db, sql: "SELECT service, level, changedAt FROM retiredAuthorization WHERE bundleIdentifier = ?",
                arguments: [identifier])
            try Self.keepAside(identifier, loadedFrom: currentPath, at: time, db)
            for row in kept {
                try db.execute(
                    sql: "INSERT INTO authorization (bundleIdentifier, service, level, changedAt) VALUES (?, ?, ?, ?)",
                    arguments: [
                        identifier, row["service"] as String, row["level"] as String, row["changedAt"] as Double,
                    ])
            }
            return previous
        }
    }

    /// Where the identity kept aside for `identifier` was loaded from, if one is kept.
    package func retiredIdentity(_ identifier: BundleID) throws -> String? {
        try database.read { db in
            try String.fetchOne(
                db, sql: "SELECT path FROM retiredIdentity WHERE bundleIdentifier = ?", arguments: [identifier])
        }
    }

    private static func keepAside(_ identifier: BundleID, loadedFrom path: String, at time: Date, _ db: Database) throws
    {
        try db.execute(sql: "DELETE FROM retiredAuthorization WHERE bundleIdentifier = ?", arguments: [identifier])
        try db.execute(
            sql: """
                INSERT INTO retiredAuthorization (bundleIdentifier, service, level, changedAt)
                SELECT bundleIdentifier, service, level, changedAt FROM authorization WHERE bundleIdentifier = ?
                """, arguments: [identifier])
        try db.execute(
            sql: "INSERT OR REPLACE INTO retiredIdentity (bundleIdentifier, path, retiredAt) VALUES (?, ?, ?)",
            arguments: [identifier, path, time.timeIntervalSince1970])
        for table in identityTables {
            try db.execute(sql: "DELETE FROM \(table) WHERE bundleIdentifier = ?", arguments: [identifier])
        }
        // Its notification requests' trigger regions are kept under an owner of their own.
        try db.execute(
            sql: "DELETE FROM monitoredRegion WHERE bundleIdentifier = ?",
            arguments: [RegionOwner.notification(identifier).stored])
    }
}
