import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import GRDB
import Logging
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

/// Keeping an identity aside on disk, and a daemon stopped halfway through: a real store and
/// real directories, with each stop a daemon could meet between two renames laid out by hand.
@Suite("Identities kept aside on disk")
struct IdentityRetirementTests {
    static let id: BundleID = "org.example.kept"

    struct Scene {
        let directory: TemporaryDirectory
        let store: StateStore
        let retirement: IdentityRetirement
        var data: String { directory.appending("state/data/\(IdentityRetirementTests.id)") }
        var kept: String { directory.appending("state/retired/\(IdentityRetirementTests.id)") }

        init(prefix: String) throws {
            directory = try TemporaryDirectory(prefix: prefix)
            let state = directory.appending("state")
            store = try StateStore(directory: state)
            try FileManager.default.createDirectory(atPath: state + "/data", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: state + "/retired", withIntermediateDirectories: true)
            try store.database.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO bundle (bundleIdentifier, path, name, firstSeenAt, lastSeenAt)
                        VALUES (?, '/gone/Old.bundle', 'Old', 0, 0)
                        """, arguments: [IdentityRetirementTests.id])
            }
            retirement = IdentityRetirement(
                store: store, directories: AppDirectories(stateDirectory: state), volumes: nil,
                logger: Logger(label: "test"))
        }

        func write(_ text: String, in path: String) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try text.write(toFile: path + "/notes.txt", atomically: false, encoding: .utf8)
        }

        func read(_ path: String) -> String? { try? String(contentsOfFile: path + "/notes.txt", encoding: .utf8) }
    }

    static let claim = BundleClaim(identifier: id, claimant: "/new/New.bundle", previous: "/gone/Old.bundle")

    @Test("kept aside: the data moves out of the claimant's reach; a claim the store no longer names moves nothing")
    func retireMovesTheData() throws {
        let scene = try Scene(prefix: "keep")
        defer { scene.directory.remove() }
        try scene.write("old", in: scene.data)
        let region = CircularRegion(identifier: "home", center: Coordinate(latitude: 46, longitude: 14), radius: 100)
        try scene.store.saveRegion(region, owner: .app(Self.id), state: .inside)
        try scene.store.saveRegion(region, owner: .notification(Self.id), state: .unknown)
        try scene.store.saveRegion(region, owner: .notification("org.example.other"), state: .unknown)
        #expect(try scene.retirement.retire(Self.claim))
        #expect(scene.read(scene.kept) == "old")
        // Its regions go with it, its notifications' too; another app's stay.
        #expect(try scene.store.monitoredRegions().map(\.owner) == [.notification("org.example.other")])
        #expect(!FileManager.default.fileExists(atPath: scene.data))
        #expect(try scene.store.retiredIdentity(Self.id) == "/gone/Old.bundle")

        // The claimant's own data now; the same claim again is stale and moves none of it.
        try scene.write("new", in: scene.data)
        #expect(try !scene.retirement.retire(Self.claim))
        #expect(scene.read(scene.data) == "new")
        #expect(scene.read(scene.kept) == "old")
    }

    @Test("a daemon stopped after staging, before the store committed: the next start and scan keep the data aside")
    func stoppedBeforeCommit() throws {
        let scene = try Scene(prefix: "keep-stop")
        defer { scene.directory.remove() }
        try scene.write("old", in: scene.kept + "~retiring")
        scene.retirement.finishInterrupted()
        #expect(scene.read(scene.kept) == "old")
        // The store still names the removed app: the next scan retires it, keeping what is kept.
        #expect(try scene.retirement.retire(Self.claim))
        #expect(scene.read(scene.kept) == "old")
        #expect(!FileManager.default.fileExists(atPath: scene.data))
    }

    @Test("an exchange stopped after either rename is completed or undone, and the two identities are whole")
    func stoppedMidExchange() throws {
        // After the first rename: the kept data is staged, the current one still in use.
        let first = try Scene(prefix: "swap-1")
        defer { first.directory.remove() }
        try first.write("kept", in: first.kept + "~adopting")
        try first.write("current", in: first.data)
        first.retirement.finishInterrupted()
        #expect(first.read(first.kept) == "kept" && first.read(first.data) == "current")

        // After the second: the current data is kept, the restored one still staged.
        let second = try Scene(prefix: "swap-2")
        defer { second.directory.remove() }
        try second.write("kept", in: second.kept + "~adopting")
        try second.write("current", in: second.kept)
        second.retirement.finishInterrupted()
        #expect(second.read(second.data) == "kept" && second.read(second.kept) == "current")
    }
}
