package import BackgrounderCore
import Foundation
package import GRDB

/// What the system schedules for apps, kept across daemon restarts and reboots: fetch
/// histories, task requests, device tokens and deferred pushes. Each value is stored as the
/// JSON of its Core type, so the scheduling rules own their shape.
extension StateStore {
    package static func createSchedulingTables(_ db: Database) throws {
        try db.create(table: "fetchHistory") { table in
            table.primaryKey("bundleIdentifier", .text)
            table.column("history", .text).notNull()
        }
        try db.create(table: "taskRequest") { table in
            table.column("bundleIdentifier", .text).notNull()
            table.column("identifier", .text).notNull()
            table.column("request", .text).notNull()
            table.primaryKey(["bundleIdentifier", "identifier"])
        }
        try db.create(table: "pushToken") { table in
            table.primaryKey("bundleIdentifier", .text)
            table.column("token", .text).notNull().unique()
        }
        try db.create(table: "pushBudget") { table in
            table.primaryKey("bundleIdentifier", .text)
            table.column("budget", .text).notNull()
        }
        // The boot the force-quit marks were made in: a reboot clears them, as on iOS.
        try db.create(table: "bootMark") { table in
            table.primaryKey("key", .text)
            table.column("bootID", .text).notNull()
        }
    }

    /// Everything scheduled, as stored.
    package struct StoredSchedule {
        package var histories: [BundleID: FetchHistory] = [:]
        package var requests: [BundleID: [String: BackgroundTaskRequest]] = [:]
        package var tokens: [BundleID: String] = [:]
        package var budgets: [BundleID: PushBudget] = [:]

        /// Creates a value from its parts.
        package init(
            histories: [BundleID: FetchHistory] = [:], requests: [BundleID: [String: BackgroundTaskRequest]] = [:],
            tokens: [BundleID: String] = [:], budgets: [BundleID: PushBudget] = [:]
        ) {
            self.histories = histories
            self.requests = requests
            self.tokens = tokens
            self.budgets = budgets
        }
    }

    /// Loads everything scheduled; a row that does not decode is skipped (only this daemon
    /// writes these tables, so it would be a row of a newer release).
    package func loadSchedule() throws -> StoredSchedule {
        let decoder = JSONDecoder()
        func decode<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
            try? decoder.decode(type, from: Data(text.utf8))
        }
        return try database.read { db in
            var schedule = StoredSchedule()
            for row in try Row.fetchAll(db, sql: "SELECT bundleIdentifier, history FROM fetchHistory") {
                schedule.histories[row["bundleIdentifier"]] = decode(FetchHistory.self, row["history"])
            }
            for row in try Row.fetchAll(db, sql: "SELECT bundleIdentifier, identifier, request FROM taskRequest") {
                guard let request = decode(BackgroundTaskRequest.self, row["request"]) else { continue }
                schedule.requests[row["bundleIdentifier"], default: [:]][row["identifier"]] = request
            }
            for row in try Row.fetchAll(db, sql: "SELECT bundleIdentifier, token FROM pushToken") {
                schedule.tokens[row["bundleIdentifier"]] = row["token"]
            }
            for row in try Row.fetchAll(db, sql: "SELECT bundleIdentifier, budget FROM pushBudget") {
                schedule.budgets[row["bundleIdentifier"]] = decode(PushBudget.self, row["budget"])
            }
            return schedule
        }
    }

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    package func saveFetchHistory(_ history: FetchHistory, for bundle: BundleID) throws {
        let text = try Self.json(history)
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO fetchHistory (bundleIdentifier, history) VALUES (?, ?)",
                arguments: [bundle, text])
        }
    }

    /// Stores a task request, replacing one pending for the same identifier.
    package func saveTaskRequest(_ request: BackgroundTaskRequest, for bundle: BundleID) throws {
        let text = try Self.json(request)
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO taskRequest (bundleIdentifier, identifier, request) VALUES (?, ?, ?)",
                arguments: [bundle, request.identifier, text])
        }
    }

    /// Removes one task request, or all of an app's when `identifier` is `nil`.
    package func removeTaskRequests(for bundle: BundleID, identifier: String?) throws {
        try write { db in
            try db.execute(
                sql: "DELETE FROM taskRequest WHERE bundleIdentifier = ?1 AND (?2 IS NULL OR identifier = ?2)",
                arguments: [bundle, identifier])
        }
    }

    /// Stores an app's device token, or revokes it (`nil`).
    package func setPushToken(_ token: String?, for bundle: BundleID) throws {
        try write { db in
            if let token {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO pushToken (bundleIdentifier, token) VALUES (?, ?)",
                    arguments: [bundle, token])
            } else {
                try db.execute(sql: "DELETE FROM pushToken WHERE bundleIdentifier = ?", arguments: [bundle])
            }
        }
    }

    package func savePushBudget(_ budget: PushBudget, for bundle: BundleID) throws {
        let text = try Self.json(budget)
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO pushBudget (bundleIdentifier, budget) VALUES (?, ?)",
                arguments: [bundle, text])
        }
    }

    /// Clears every force-quit mark when the machine has rebooted since they were made, and
    /// records this boot.
    /// - Returns: Whether marks were cleared.
    package func clearForceQuitAfterReboot(bootID: String) throws -> Bool {
        try write { db in
            let last = try String.fetchOne(db, sql: "SELECT bootID FROM bootMark WHERE key = 'forceQuit'")
            try db.execute(
                sql: "INSERT OR REPLACE INTO bootMark (key, bootID) VALUES ('forceQuit', ?)", arguments: [bootID])
            guard let last, last != bootID else { return false }
            try db.execute(sql: "UPDATE bundle SET forceQuit = 0 WHERE forceQuit")
            return db.changesCount > 0
        }
    }
}

extension StateStore {
    /// The boot on which a once-per-boot event (the first unlock) was last seen.
    package func bootMark(_ key: String) throws -> String? {
        try database.read { db in
            try String.fetchOne(db, sql: "SELECT bootID FROM bootMark WHERE key = ?", arguments: [key])
        }
    }

    /// Records that a once-per-boot event happened on `bootID`.
    package func setBootMark(_ key: String, _ bootID: String) throws {
        try write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO bootMark (key, bootID) VALUES (?, ?)", arguments: [key, bootID])
        }
    }
}
