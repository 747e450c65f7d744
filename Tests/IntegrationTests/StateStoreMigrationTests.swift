import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import GRDB
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

/// A state directory from each earlier schema version, started under this daemon: the data
/// of that version is all there after the migration, read back through the protocol.
///
/// Every migration so far only adds tables, so the database a daemon of version N left is a
/// current one without the tables of later migrations (and without their rows in
/// `grdb_migrations`). The test lets a real daemon store grants, a force quit, regions, a
/// fetch interval and a task request, stops it, and for each earlier version cuts a copy
/// down to what that version had before starting a daemon on it.
@Suite("state database migrations", .timeLimit(.minutes(5)), .tearsDown)
struct StateStoreMigrationTests {
    /// Each shipped migration and the tables it creates.
    static let migrations: [(identifier: String, tables: [String])] = [
        ("v1: runs and bundles", ["daemonRun", "bundle"]),
        ("v2: location", ["authorization", "locationSubscription", "monitoredRegion", "locationEvent"]),
        ("v3: app users", ["appUser"]),
        ("v4: scheduling", ["fetchHistory", "taskRequest", "pushToken", "pushBudget", "bootMark"]),
        ("v5: transfers", ["transfer"]),
        ("v6: app processes", ["appProcess"]),
        ("v7: notifications", ["notification"]),
        ("v8: retired identities", ["retiredIdentity", "retiredAuthorization"]),
        ("v9: shared files", ["sharedFile"]),
        ("v10: library shares", []),
    ]
    /// Columns a migration adds to an earlier table, by migration.
    static let addedColumns: [String: [(table: String, column: String)]] = [
        "v10: library shares": [("sharedFile", "library")]
    ]

    static let tracker = "org.backgrounder.tests.tracker"
    static let worker = "org.backgrounder.tests.worker"
    static let fetcher = "org.backgrounder.tests.fetcher"
    static let alerts = "org.backgrounder.samples.regionalerts"

    static func tables(_ path: String) throws -> Set<String> {
        let database = try DatabaseQueue(path: path)
        return try database.read { db in
            Set(
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
        }
    }

    @Test("the list above is every migration the daemon has, and the tables they make")
    func listIsComplete() throws {
        let directory = try TemporaryDirectory(prefix: "migr-list")
        atTeardown { directory.remove() }
        let store = try StateStore(directory: directory.appending("state"))
        #expect(StateStore.migrator.migrations == Self.migrations.map(\.identifier))
        #expect(try store.appliedMigrations() == Self.migrations.map(\.identifier))
        #expect(
            try Self.tables(store.path)
                == Set(Self.migrations.flatMap(\.tables) + ["grdb_migrations"]))
    }

    @Test(
        "every table holding an app's rows goes with its identity when kept aside, but for the bundle, its uid and the identities kept aside"
    )
    func identityTablesAreComplete() throws {
        let directory = try TemporaryDirectory(prefix: "migr-identity")
        atTeardown { directory.remove() }
        let store = try StateStore(directory: directory.appending("state"))
        let database = try DatabaseQueue(path: store.path)
        let perApp = try database.read { db in
            try Self.tables(store.path).filter { table in
                try db.columns(in: table).contains { $0.name == "bundleIdentifier" }
            }
        }
        #expect(
            perApp.subtracting(StateStore.identityTables)
                == ["bundle", "appUser", "retiredIdentity", "retiredAuthorization"])
        #expect(Set(StateStore.identityTables).isSubset(of: perApp))
    }

    /// Moves what the write-ahead log holds into the database file and removes the log, so the
    /// file alone is the whole database (the daemon leaves its last pages in the log).
    static func checkpoint(_ path: String) throws {
        let database = try DatabaseQueue(path: path)
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try database.close()
    }

    /// Cuts a current database down to what the daemon had after migration `version` (1-based).
    static func downgrade(_ path: String, to version: Int) throws {
        let database = try DatabaseQueue(path: path)
        try database.write { db in
            // Newest first: a column goes before the table it was added to.
            for (identifier, tables) in migrations.dropFirst(version).reversed() {
                for added in addedColumns[identifier] ?? [] {
                    try db.execute(sql: "ALTER TABLE \(added.table) DROP COLUMN \(added.column)")
                }
                for table in tables { try db.execute(sql: "DROP TABLE \(table)") }
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [identifier])
            }
        }
    }

    @Test("a state directory of every earlier schema version keeps its data under this daemon")
    func everyEarlierVersion() async throws {
        let directory = try TemporaryDirectory(prefix: "migr")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        try TestAppBundles.make("Tracker", behavior: "idle", modes: ["location"], into: bundles)
        try TestAppBundles.make(
            "Worker", behavior: "process", modes: ["processing"], taskIdentifiers: [Self.worker + ".processing"],
            into: bundles)
        try TestAppBundles.make("Fetcher", behavior: "fetch-newData", modes: ["fetch"], into: bundles)
        try SampleBundles.assemble("RegionAlerts", into: bundles)

        // The data, stored by a real daemon.
        let source = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        atTeardown { await source.stop() }
        func request(_ daemon: DaemonProcess, _ body: ClientMessage.Body) throws -> DaemonMessage.Body {
            try daemon.client().request(body).body
        }
        for id in [Self.tracker, Self.alerts] {
            guard
                case .done = try request(source, .authorize(Authorize(bundle: BundleID(id), grant: .location(.always))))
            else { throw HarnessError("authorize \(id) refused") }
        }
        let add = try ChildProcess(
            Locations.product("RegionAlerts"),
            ["add", "viewpoint", "46.3654", "14.0899", "150", "--state-dir", source.stateDirectory],
            logPath: directory.appending("regionalerts-add.log"))
        #expect(await add.waitForExit(timeout: .seconds(30)) && add.terminationStatus == 0, "\(add.output)")
        for id in [Self.alerts, Self.worker, Self.fetcher, Self.tracker] {
            _ = try request(source, .open(OpenApp(bundle: BundleID(id))))
        }
        _ = try request(source, .quit(AppReference(bundle: BundleID(Self.tracker))))

        func regions(_ daemon: DaemonProcess) throws -> [String] {
            guard case .regions(let list) = try request(daemon, .regions(RegionQuery(bundle: BundleID(Self.alerts))))
            else {
                throw HarnessError("no REGIONS")
            }
            return list.regions.map(\.region.identifier)
        }
        func schedule(_ daemon: DaemonProcess) throws -> Set<String> {
            guard case .schedule(let list) = try request(daemon, .tasks(ScheduleQuery())) else {
                throw HarnessError("no TASKS")
            }
            return Set(list.entries.map { "\($0.bundle) \($0.kind) \($0.identifier ?? "-")" })
        }
        func grants(_ daemon: DaemonProcess) throws -> [String: LocationAuthorization] {
            guard case .permissions(let list) = try request(daemon, .permissions(PermissionsQuery())) else {
                throw HarnessError("no PERMISSIONS")
            }
            var grants: [String: LocationAuthorization] = [:]
            for entry in list.apps { grants[entry.bundle.rawValue] = entry.location }
            return grants
        }
        func forceQuit(_ daemon: DaemonProcess) throws -> Bool {
            guard case .apps(let list) = try request(daemon, .ps) else { throw HarnessError("no APPS") }
            return list.apps.first { $0.id.rawValue == Self.tracker }?.forceQuit == true
        }
        let expectedSchedule: Set<String> = [
            "\(Self.worker) processing \(Self.worker).processing", "\(Self.fetcher) fetch -",
        ]
        let stored = try await waitUntil(timeout: .seconds(60)) {
            try regions(source) == ["viewpoint"] && expectedSchedule.isSubset(of: try schedule(source))
        }
        #expect(
            stored,
            "regions \(String(describing: try? regions(source))), tasks \(String(describing: try? schedule(source)))\n\(source.log)"
        )
        #expect(try forceQuit(source))
        #expect(await source.stop(), "\(source.log)")
        let current = source.stateDirectory + "/backgrounder.sqlite"
        try Self.checkpoint(current)
        #expect(!FileManager.default.fileExists(atPath: current + "-wal"))

        for version in 1..<Self.migrations.count {
            let copy = try TemporaryDirectory(prefix: "migr-v\(version)")
            atTeardown { copy.remove() }
            try FileManager.default.createDirectory(
                atPath: copy.appending("state"), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o711])
            let database = copy.appending("state/backgrounder.sqlite")
            try FileManager.default.copyItem(atPath: current, toPath: database)
            try Self.downgrade(database, to: version)
            let had = Set(Self.migrations.prefix(version).flatMap(\.tables))
            #expect(try Self.tables(database) == had.union(["grdb_migrations"]))

            let daemon = try await DaemonProcess(directory: copy, bundleDirectories: [bundles])
            atTeardown { await daemon.stop() }
            // Migrated to the current schema,
            #expect(
                try Self.tables(database) == Set(Self.migrations.flatMap(\.tables) + ["grdb_migrations"]),
                "v\(version)")
            // with what that version stored: the force quit (v1),
            #expect(try forceQuit(daemon), "v\(version): force quit lost")
            if version >= 2 {
                // grants and regions (v2),
                let location = try grants(daemon)
                #expect(
                    location[Self.tracker] == .always && location[Self.alerts] == .always, "v\(version): \(location)")
                #expect(try regions(daemon) == ["viewpoint"], "v\(version)")
            }
            if version >= 4 {
                // the task request and the fetch interval (v4).
                #expect(
                    expectedSchedule.isSubset(of: try schedule(daemon)),
                    "v\(version): \(String(describing: try? schedule(daemon)))")
            }
            #expect(try daemon.status().storage?.state == .ok)
            #expect(!daemon.log.contains("is corrupt"), "\(daemon.log)")
            await daemon.stop()
        }
    }
}
