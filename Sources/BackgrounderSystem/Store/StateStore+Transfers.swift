package import BackgrounderProtocol
import Foundation
package import GRDB

/// Background transfers, kept so a daemon killed or a machine rebooted resumes them: each
/// transfer's description as JSON, and the validator (`ETag` or `Last-Modified`) its partial
/// file was fetched under, which a resume sends as `If-Range`.
///
/// Progress is not written as it moves: the partial file's length is the truth a resume
/// starts from.
extension StateStore {
    package static func createTransferTable(_ db: Database) throws {
        try db.create(table: "transfer") { table in
            // AUTOINCREMENT: an identifier is never used twice, even after its row is gone.
            table.autoIncrementedPrimaryKey("id")
            table.column("bundleIdentifier", .text).notNull().indexed()
            table.column("info", .text).notNull()
            table.column("validator", .text)
        }
    }

    /// One stored transfer.
    package struct StoredTransfer: Sendable {
        package var info: TransferInfo
        package var validator: String?

        /// Creates a value from its parts.
        package init(info: TransferInfo, validator: String?) {
            self.info = info
            self.validator = validator
        }
    }

    /// Every stored transfer, oldest first; a row that does not decode is skipped (only this
    /// daemon writes the table, so it would be a row of a newer release).
    package func loadTransfers() throws -> [StoredTransfer] {
        let decoder = JSONDecoder()
        return try database.read { db in
            try Row.fetchAll(db, sql: "SELECT info, validator FROM transfer ORDER BY id").compactMap { row in
                let text: String = row["info"]
                guard let info = try? decoder.decode(TransferInfo.self, from: Data(text.utf8)) else { return nil }
                return StoredTransfer(info: info, validator: row["validator"])
            }
        }
    }

    /// The largest transfer identifier ever stored, so identifiers are never reused.
    package func lastTransferID() throws -> Int {
        try database.read { db in
            try Int.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'transfer'") ?? 0
        }
    }

    /// Stores a transfer, replacing its earlier row.
    package func saveTransfer(_ transfer: StoredTransfer) throws {
        let text = String(decoding: try JSONEncoder().encode(transfer.info), as: UTF8.self)
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO transfer (id, bundleIdentifier, info, validator) VALUES (?, ?, ?, ?)",
                arguments: [transfer.info.id, transfer.info.bundle, text, transfer.validator])
        }
    }

    /// Forgets a transfer the app has heard the end of.
    package func removeTransfer(id: Int) throws {
        try write { db in try db.execute(sql: "DELETE FROM transfer WHERE id = ?", arguments: [id]) }
    }
}
