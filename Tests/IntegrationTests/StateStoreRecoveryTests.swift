import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import GRDB
import Testing

/// A state database that is garbage when the daemon starts: the daemon says which file and
/// why, keeps the file aside for a person, and starts on a fresh one that works.
@Suite("state database recovery", .timeLimit(.minutes(5)), .tearsDown)
struct StateStoreRecoveryTests {
    static let tracker = "org.backgrounder.tests.tracker"

    /// Where garbage goes over the database.
    enum Damage: String, CaseIterable, Sendable {
        /// The first 4 KiB: SQLite no longer recognises the file.
        case header
        /// Every page but the first: the header is sound, the tables are not.
        case pages
        /// The whole file, same length.
        case whole
    }

    static func authorize(_ daemon: DaemonProcess, _ id: String) throws {
        guard
            case .done = try daemon.client().request(
                .authorize(Authorize(bundle: BundleID(id), grant: .location(.always)))
            ).body
        else { throw HarnessError("authorize \(id) refused") }
    }

    static func locationGrants(_ daemon: DaemonProcess) throws -> [String: LocationAuthorization] {
        guard case .permissions(let grants) = try daemon.client().request(.permissions(PermissionsQuery())).body
        else { throw HarnessError("no PERMISSIONS") }
        var result: [String: LocationAuthorization] = [:]
        for app in grants.apps { result[app.bundle.rawValue] = app.location }
        return result
    }

    @Test(
        "garbage over the database: a clear error naming it, the old file kept aside, a fresh database that works",
        arguments: Damage.allCases)
    func corruptDatabase(_ damage: Damage) async throws {
        let directory = try TemporaryDirectory(prefix: "corrupt")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        try TestAppBundles.make("Tracker", behavior: "idle", modes: ["location"], into: bundles)

        // A daemon that stored a grant, stopped cleanly (its write-ahead log checkpointed).
        let first = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        atTeardown { await first.stop() }
        try Self.authorize(first, Self.tracker)
        #expect(try Self.locationGrants(first)[Self.tracker] == .always)
        #expect(await first.stop(), "\(first.log)")

        let state = directory.appending("state")
        let database = state + "/backgrounder.sqlite"
        // The daemon leaves its pages in the write-ahead log, where SQLite reads them first:
        // moved into the file, as a database at rest is, the garbage hits what SQLite reads.
        try StateStoreMigrationTests.checkpoint(database)
        let original = try #require(FileManager.default.contents(atPath: database))
        #expect(original.count >= 8192, "\(original.count) bytes")
        var generator = SeededGenerator(seed: 22)
        let garbage = { (count: Int) in Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        var damaged = original
        switch damage {
        case .header: damaged.replaceSubrange(0..<4096, with: garbage(4096))
        case .pages: damaged.replaceSubrange(4096..<original.count, with: garbage(original.count - 4096))
        case .whole: damaged = garbage(original.count)
        }
        try damaged.write(to: URL(fileURLWithPath: database))

        let second = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        atTeardown { await second.stop() }
        // The error names the file, says it is corrupt and where it went.
        let line = try #require(
            second.log.split(separator: "\n").first { $0.contains("is corrupt") }, "daemon log: \(second.log)")
        #expect(line.contains(database), "\(line)")
        let aside = try #require(
            try FileManager.default.contentsOfDirectory(atPath: state).first {
                $0.hasPrefix("backgrounder.sqlite.corrupt-")
            }, "\(String(describing: try? FileManager.default.contentsOfDirectory(atPath: state)))")
        #expect(line.contains(state + "/" + aside), "\(line)")
        #expect(aside.range(of: #"^backgrounder\.sqlite\.corrupt-\d{8}T\d{6}Z$"#, options: .regularExpression) != nil)
        // The old bytes are kept as they were.
        #expect(FileManager.default.contents(atPath: state + "/" + aside) == damaged)

        // A fresh database: nothing of the old one, and it stores and serves again.
        #expect((try Self.locationGrants(second)[Self.tracker] ?? .notDetermined) == .notDetermined)
        try Self.authorize(second, Self.tracker)
        #expect(try Self.locationGrants(second)[Self.tracker] == .always)
        #expect(try second.status().storage?.state == .ok)
        #expect(await second.stop(), "\(second.log)")

        // And the next start finds it sound: nothing more is moved aside.
        let third = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        atTeardown { await third.stop() }
        #expect(try Self.locationGrants(third)[Self.tracker] == .always)
        #expect(!third.log.contains("is corrupt"))
        let asides = try FileManager.default.contentsOfDirectory(atPath: state).filter { $0.contains(".corrupt-") }
        #expect(asides == [aside], "\(asides)")
    }

    @Test("a database the daemon cannot open for another reason is not moved aside: the daemon stops, naming it")
    func unreadableIsNotCorrupt() async throws {
        let directory = try TemporaryDirectory(prefix: "unreadable")
        atTeardown { directory.remove() }
        let state = directory.appending("state")
        try FileManager.default.createDirectory(
            atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o711])
        // A directory where the database file should be: SQLite cannot open it.
        try FileManager.default.createDirectory(
            atPath: state + "/backgrounder.sqlite", withIntermediateDirectories: true)
        let failed: Bool
        do {
            let daemon = try await DaemonProcess(directory: directory)
            atTeardown { await daemon.stop() }
            failed = false
        } catch {
            failed = true
            #expect("\(error)".contains("backgrounder.sqlite"), "\(error)")
        }
        #expect(failed, "the daemon started on a database it cannot open")
        let names = try FileManager.default.contentsOfDirectory(atPath: state)
        #expect(!names.contains { $0.contains(".corrupt-") }, "\(names)")
    }
}
