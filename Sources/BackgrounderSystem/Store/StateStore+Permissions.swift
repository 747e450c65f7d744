package import BackgrounderCore
package import Foundation
import GRDB

/// The grants people made, as `bgctl permissions` shows them.
extension StateStore {
    /// One stored grant.
    package struct StoredGrant: Equatable {
        package var bundleIdentifier: BundleID
        package var service: AuthorizationService
        /// The stored word (``StateStore/storedLevel(_:)``).
        package var level: String
        package var changedAt: Date
    }

    /// Every stored grant, or one app's, by identifier then service.
    package func grants(for bundleIdentifier: BundleID? = nil) throws -> [StoredGrant] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT bundleIdentifier, service, level, changedAt FROM authorization
                    WHERE ?1 IS NULL OR bundleIdentifier = ?1 ORDER BY bundleIdentifier, service
                    """,
                arguments: [bundleIdentifier]
            ).compactMap { row in
                // Only this daemon writes the table; a service it does not know is not its row.
                guard let service = AuthorizationService(rawValue: row["service"]) else { return nil }
                return StoredGrant(
                    bundleIdentifier: row["bundleIdentifier"], service: service, level: row["level"],
                    changedAt: Date(timeIntervalSince1970: row["changedAt"]))
            }
        }
    }
}
