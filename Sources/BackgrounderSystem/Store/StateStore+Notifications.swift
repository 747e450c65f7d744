package import BackgrounderCore
package import BackgrounderProtocol
package import Foundation
package import GRDB

/// What the store keeps for local notifications: each app's pending requests with their next
/// fire time, and its delivered notifications with the presenter's handle. They outlive the
/// app's process and the daemon: a force-quit app's requests still fire.
extension StateStore {
    package static func createNotificationTable(_ db: Database) throws {
        try db.create(table: "notification") { table in
            table.column("bundleIdentifier", .text).notNull()
            table.column("identifier", .text).notNull()
            // `pending` or `delivered`: a repeating request is both at once.
            table.column("list", .text).notNull()
            // JSON of NotificationRequest: content and trigger.
            table.column("request", .text).notNull()
            table.column("nextFire", .double)
            table.column("deliveredAt", .double)
            table.column("presenter", .text)
            table.primaryKey(["bundleIdentifier", "identifier", "list"])
        }
    }

    /// Every stored notification, by app.
    package struct StoredNotifications {
        package var pending: [BundleID: [String: PendingNotification]] = [:]
        package var delivered: [BundleID: [String: DeliveredNotification]] = [:]
    }

    private static func notificationJSON(_ request: NotificationRequest) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(request), as: UTF8.self)
    }

    /// Loads every app's notifications; a row that no longer decodes is skipped and named.
    package func loadNotifications(skipped: (String) -> Void = { _ in }) throws -> StoredNotifications {
        try database.read { db in
            var stored = StoredNotifications()
            for row in try Row.fetchAll(db, sql: "SELECT * FROM notification") {
                let bundle: BundleID = row["bundleIdentifier"]
                let text: String = row["request"]
                guard let request = try? JSONDecoder().decode(NotificationRequest.self, from: Data(text.utf8)) else {
                    skipped("\(bundle)'s notification \(row["identifier"] as String)")
                    continue
                }
                if row["list"] == NotificationListKind.pending.rawValue {
                    stored.pending[bundle, default: [:]][request.identifier] = PendingNotification(
                        request: request, nextFire: row["nextFire"])
                } else {
                    stored.delivered[bundle, default: [:]][request.identifier] = DeliveredNotification(
                        request: request, date: row["deliveredAt"] ?? 0, presenter: row["presenter"])
                }
            }
            return stored
        }
    }

    /// Adds or replaces a pending request.
    package func savePendingNotification(_ pending: PendingNotification, for bundle: BundleID) throws {
        let text = try Self.notificationJSON(pending.request)
        try write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO notification (bundleIdentifier, identifier, list, request, nextFire)
                    VALUES (?, ?, 'pending', ?, ?)
                    """,
                arguments: [bundle, pending.request.identifier, text, pending.nextFire])
        }
    }

    /// Removes some (or, with `nil`, all) of an app's pending requests or delivered notifications.
    package func removeNotifications(_ list: NotificationListKind, identifiers: [String]?, for bundle: BundleID) throws
    {
        try write { db in
            guard let identifiers else {
                try db.execute(
                    sql: "DELETE FROM notification WHERE bundleIdentifier = ? AND list = ?",
                    arguments: [bundle, list.rawValue])
                return
            }
            for identifier in identifiers {
                try db.execute(
                    sql: "DELETE FROM notification WHERE bundleIdentifier = ? AND list = ? AND identifier = ?",
                    arguments: [bundle, list.rawValue, identifier])
            }
        }
    }

    /// A request fired: it is pending again at `nextFire`, pending still (a repeating region
    /// trigger, `keepPending`), or no longer pending.
    package func recordFired(_ request: NotificationRequest, nextFire: Date?, keepPending: Bool, for bundle: BundleID)
        throws
    {
        guard !keepPending || nextFire != nil else { return }
        try write { db in
            if let nextFire, keepPending {
                try db.execute(
                    sql: """
                        UPDATE notification SET nextFire = ?
                        WHERE bundleIdentifier = ? AND identifier = ? AND list = 'pending'
                        """,
                    arguments: [nextFire.timeIntervalSince1970, bundle, request.identifier])
            } else {
                try db.execute(
                    sql: "DELETE FROM notification WHERE bundleIdentifier = ? AND identifier = ? AND list = 'pending'",
                    arguments: [bundle, request.identifier])
            }
        }
    }

    /// Records a delivered notification, replacing an earlier delivery of the same identifier.
    package func saveDelivered(_ delivered: DeliveredNotification, for bundle: BundleID) throws {
        let text = try Self.notificationJSON(delivered.request)
        try write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO notification
                        (bundleIdentifier, identifier, list, request, deliveredAt, presenter)
                    VALUES (?, ?, 'delivered', ?, ?, ?)
                    """,
                arguments: [bundle, delivered.request.identifier, text, delivered.date, delivered.presenter])
        }
    }

    /// Records the presenter's handle for a delivered notification.
    package func setNotificationPresenter(_ presenter: String?, identifier: String, for bundle: BundleID) throws {
        try write { db in
            try db.execute(
                sql: """
                    UPDATE notification SET presenter = ?
                    WHERE bundleIdentifier = ? AND identifier = ? AND list = 'delivered'
                    """,
                arguments: [presenter, bundle, identifier])
        }
    }
}
