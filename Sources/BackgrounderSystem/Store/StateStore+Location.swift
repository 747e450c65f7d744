package import BackgrounderCore
package import BackgrounderProtocol
import Foundation
package import GRDB

/// What the store keeps for location: grants, subscriptions, regions with their last state,
/// and each app's queue of fixes and region events not yet acknowledged.
extension StateStore {
    /// The most events kept for one app; beyond it the oldest go (a recorder that is never
    /// relaunched must not fill the disk). At one fix a second this is more than half a day.
    package static let maximumQueuedEvents = 50_000

    package static func createLocationTables(_ db: Database) throws {
        try db.create(table: "authorization") { table in
            table.column("bundleIdentifier", .text).notNull()
            table.column("service", .text).notNull()
            table.column("level", .text).notNull()
            table.column("changedAt", .double).notNull()
            table.primaryKey(["bundleIdentifier", "service"])
        }
        try db.create(table: "locationSubscription") { table in
            table.primaryKey("bundleIdentifier", .text)
            // JSON of LocationSubscription: the app's settings outlive its process.
            table.column("subscription", .text).notNull()
        }
        try db.create(table: "monitoredRegion") { table in
            table.column("bundleIdentifier", .text).notNull()
            table.column("identifier", .text).notNull()
            table.column("region", .text).notNull()
            // Persisted so a restart does not report a second entry (RegionState raw value).
            table.column("state", .text).notNull()
            table.primaryKey(["bundleIdentifier", "identifier"])
        }
        try db.create(table: "locationEvent") { table in
            table.autoIncrementedPrimaryKey("seq")
            table.column("bundleIdentifier", .text).notNull().indexed()
            table.column("kind", .text).notNull()
            table.column("location", .text).notNull()
            table.column("region", .text)
        }
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    // MARK: Authorization

    /// Every stored location grant.
    package func locationAuthorizations() throws -> [BundleID: LocationAuthorization] {
        try authorizationLevels(service: .location).mapValues { LocationAuthorization(rawValue: $0) ?? .notDetermined }
    }

    /// Every stored microphone grant.
    package func microphoneAuthorizations() throws -> [BundleID: MicrophoneAuthorization] {
        try authorizationLevels(service: .microphone).mapValues {
            MicrophoneAuthorization(rawValue: $0) ?? .notDetermined
        }
    }

    /// Every stored grant for one service, as stored words (``storedLevel(_:)``) by app.
    package func authorizationLevels(service: AuthorizationService) throws -> [BundleID: String] {
        try database.read { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT bundleIdentifier, level FROM authorization WHERE service = ?",
                arguments: [service.rawValue])
            var grants: [BundleID: String] = [:]
            for row in rows {
                grants[row["bundleIdentifier"]] = row["level"]
            }
            return grants
        }
    }

    /// Stores a grant.
    package func setAuthorization(_ bundleIdentifier: BundleID, _ grant: AuthorizationGrant) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO authorization (bundleIdentifier, service, level, changedAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT(bundleIdentifier, service) DO UPDATE SET
                        level = excluded.level, changedAt = excluded.changedAt
                    """,
                arguments: [
                    bundleIdentifier, grant.service.rawValue, Self.storedLevel(grant), Date().timeIntervalSince1970,
                ]
            )
        }
    }

    /// How the `authorization` table spells a level: the enum's raw value (`always`,
    /// `whenInUse`, `denied`; `granted`, `denied`), not the word a person types, so rows
    /// written by earlier versions still read.
    package static func storedLevel(_ grant: AuthorizationGrant) -> String {
        switch grant {
        case .location(let level): level.rawValue
        case .microphone(let level): level.rawValue
        case .notifications(let level): level.rawValue
        case .mediaLibrary(let level): level.rawValue
        }
    }

    // MARK: Subscriptions

    /// Every stored subscription.
    package func locationSubscriptions() throws -> [BundleID: LocationSubscription] {
        try database.read { db in
            var subscriptions: [BundleID: LocationSubscription] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT bundleIdentifier, subscription FROM locationSubscription") {
                subscriptions[row["bundleIdentifier"]] = try Self.decode(LocationSubscription.self, row["subscription"])
            }
            return subscriptions
        }
    }

    /// Stores a subscription; an empty one is removed, with the app's queued fixes.
    package func setLocationSubscription(_ bundleIdentifier: BundleID, _ subscription: LocationSubscription) throws {
        try write { db in
            if subscription.isEmpty {
                try db.execute(
                    sql: "DELETE FROM locationSubscription WHERE bundleIdentifier = ?", arguments: [bundleIdentifier])
                return
            }
            try db.execute(
                sql: """
                    INSERT INTO locationSubscription (bundleIdentifier, subscription) VALUES (?, ?)
                    ON CONFLICT(bundleIdentifier) DO UPDATE SET subscription = excluded.subscription
                    """,
                arguments: [bundleIdentifier, try Self.json(subscription)]
            )
        }
    }

    // MARK: Regions

    /// A stored region.
    package struct StoredRegion {
        package var owner: RegionOwner
        package var region: CircularRegion
        package var state: RegionState
    }

    /// Every monitored region.
    package func monitoredRegions() throws -> [StoredRegion] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT bundleIdentifier, region, state FROM monitoredRegion").map { row in
                let state: String = row["state"]
                return StoredRegion(
                    owner: RegionOwner(stored: row["bundleIdentifier"]),
                    region: try Self.decode(CircularRegion.self, row["region"]),
                    state: RegionState(rawValue: state) ?? .unknown
                )
            }
        }
    }

    /// Adds or replaces a region.
    package func saveRegion(_ region: CircularRegion, owner: RegionOwner, state: RegionState) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO monitoredRegion (bundleIdentifier, identifier, region, state) VALUES (?, ?, ?, ?)
                    ON CONFLICT(bundleIdentifier, identifier) DO UPDATE SET
                        region = excluded.region, state = excluded.state
                    """,
                arguments: [owner.stored, region.identifier, try Self.json(region), state.rawValue]
            )
        }
    }

    /// Records regions' confirmed states.
    package func saveRegionStates(_ states: [(owner: RegionOwner, identifier: String, state: RegionState)]) throws {
        guard !states.isEmpty else { return }
        try write { db in
            for change in states {
                try db.execute(
                    sql: "UPDATE monitoredRegion SET state = ? WHERE bundleIdentifier = ? AND identifier = ?",
                    arguments: [change.state.rawValue, change.owner.stored, change.identifier]
                )
            }
        }
    }

    /// Stops keeping a region.
    package func removeRegion(_ identifier: String, owner: RegionOwner) throws {
        try write { db in
            try db.execute(
                sql: "DELETE FROM monitoredRegion WHERE bundleIdentifier = ? AND identifier = ?",
                arguments: [owner.stored, identifier]
            )
        }
    }

    // MARK: The queue

    /// An event waiting for its app.
    package struct QueuedEvent {
        package var owner: BundleID
        package var kind: LocationEvent.Kind
        package var location: Location
        package var region: CircularRegion?

        /// Creates a value from its parts.
        package init(owner: BundleID, kind: LocationEvent.Kind, location: Location, region: CircularRegion? = nil) {
            self.owner = owner
            self.kind = kind
            self.location = location
            self.region = region
        }
    }

    /// Appends events to their apps' queues, in one transaction: all of them or, when the
    /// write fails (a full disk), none, counted in ``health`` as not stored.
    /// - Parameter beforeCommit: Given every event with its `seq`, in order, once all are
    ///   written and before the commit waits for the disk, so that what it sends travels
    ///   while the disk syncs. It runs again if the write is tried again (with the events'
    ///   new `seq`s); if the commit then fails, what it sent was not stored.
    package func enqueue(
        _ events: [QueuedEvent], beforeCommit: ([(owner: BundleID, event: LocationEvent)]) -> Void = { _ in }
    ) throws {
        guard !events.isEmpty else { return }
        do {
            try enqueueAll(events, beforeCommit: beforeCommit)
        } catch {
            health.lost(events: events.count)
            throw error
        }
    }

    private func enqueueAll(
        _ events: [QueuedEvent], beforeCommit: ([(owner: BundleID, event: LocationEvent)]) -> Void
    ) throws {
        try write { db in
            var stored: [(owner: BundleID, event: LocationEvent)] = []
            stored.reserveCapacity(events.count)
            for event in events {
                try db.execute(
                    sql: "INSERT INTO locationEvent (bundleIdentifier, kind, location, region) VALUES (?, ?, ?, ?)",
                    arguments: [
                        event.owner, event.kind.rawValue, try Self.json(event.location),
                        try event.region.map { try Self.json($0) },
                    ]
                )
                stored.append(
                    (
                        event.owner,
                        LocationEvent(
                            seq: db.lastInsertedRowID, kind: event.kind, location: event.location, region: event.region)
                    ))
            }
            for owner in Set(events.map(\.owner)) {
                try db.execute(
                    sql: """
                        DELETE FROM locationEvent WHERE bundleIdentifier = ? AND seq <= (
                            SELECT seq FROM locationEvent WHERE bundleIdentifier = ?
                            ORDER BY seq DESC LIMIT 1 OFFSET ?)
                        """,
                    arguments: [owner, owner, Self.maximumQueuedEvents]
                )
            }
            beforeCommit(stored)
        }
    }

    /// An app's queued events after `seq`, oldest first.
    package func queuedEvents(for owner: BundleID, after seq: Int64, limit: Int) throws -> [LocationEvent] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT seq, kind, location, region FROM locationEvent
                    WHERE bundleIdentifier = ? AND seq > ? ORDER BY seq LIMIT ?
                    """,
                arguments: [owner, seq, limit]
            ).map { row in
                let kind: String = row["kind"]
                let region: String? = row["region"]
                return LocationEvent(
                    seq: row["seq"],
                    kind: LocationEvent.Kind(rawValue: kind) ?? .location,
                    location: try Self.decode(Location.self, row["location"]),
                    region: try region.map { try Self.decode(CircularRegion.self, $0) }
                )
            }
        }
    }

    /// Forgets an app's events up to and including `seq` (it acknowledged them), only if they
    /// were delivered to it: an app cannot make the daemon drop what it never heard.
    /// - Parameters:
    ///   - deliveredThrough: The last `seq` sent to the app on its current connection; every
    ///     one of its events up to there was sent (batches go in `seq` order).
    /// - Returns: How many events were forgotten.
    /// - Throws: ``LocationAckRefusal`` (nothing is forgotten), or the database's error.
    @discardableResult
    package func acknowledge(_ owner: BundleID, through seq: Int64, deliveredThrough: Int64) throws -> Int {
        guard seq <= deliveredThrough else {
            throw LocationAckRefusal.notDelivered(through: seq, deliveredThrough: deliveredThrough)
        }
        return try write { db in
            // A seq still queued for another app is not one this app was sent.
            if let holder = try BundleID.fetchOne(
                db, sql: "SELECT bundleIdentifier FROM locationEvent WHERE seq = ?", arguments: [seq]),
                holder != owner
            {
                throw LocationAckRefusal.notOwn(through: seq)
            }
            try db.execute(
                sql: "DELETE FROM locationEvent WHERE bundleIdentifier = ? AND seq <= ?", arguments: [owner, seq])
            return db.changesCount
        }
    }

    /// Every event queued for an app, oldest first (for tests and diagnostics).
    package func allQueuedEvents(for owner: BundleID) throws -> [LocationEvent] {
        try queuedEvents(for: owner, after: Int64.min, limit: Int.max)
    }

    /// Forgets all of an app's queued standard and significant-change fixes (it stopped updates).
    package func dropQueuedFixes(for owner: BundleID) throws {
        try write { db in
            try db.execute(
                sql: "DELETE FROM locationEvent WHERE bundleIdentifier = ? AND kind = 'location'", arguments: [owner])
        }
    }
}
