import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
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

/// The state store against a real SQLite file: what it syncs, what an acknowledgement may
/// forget, and what a full disk does to the location queue.
@Suite("State store durability", .timeLimit(.minutes(5)), .tearsDown)
struct StateStoreDurabilityTests {
    static func fix(_ index: Int) -> Location {
        Location(
            coordinate: Coordinate(latitude: 46 + Double(index) * 1e-5, longitude: 14),
            timestamp: 1_750_000_000 + Double(index), fixMode: .threeDimensional)
    }

    static func event(_ owner: BundleID, _ index: Int) -> StateStore.QueuedEvent {
        StateStore.QueuedEvent(owner: owner, kind: .location, location: fix(index))
    }

    @Test("the writer commits with synchronous=FULL by default, NORMAL only when asked")
    func synchronousFull() throws {
        let directory = try TemporaryDirectory(prefix: "sync")
        defer { directory.remove() }
        let store = try StateStore(directory: directory.appending("state"))
        #expect(try store.synchronousSetting() == 2)
        let normal = try StateStore(directory: directory.appending("normal"), synchronous: .normal)
        #expect(try normal.synchronousSetting() == 1)
    }

    @Test("LOCATION_ACK past what was delivered, or through another app's event, forgets nothing")
    func acknowledgementChecked() throws {
        let directory = try TemporaryDirectory(prefix: "ack")
        defer { directory.remove() }
        let store = try StateStore(directory: directory.appending("state"))
        // seq 1 a, 2 b, 3 a, 4 a: a was sent 1 and 3, not yet 4.
        try store.enqueue([Self.event("a", 1)])
        try store.enqueue([Self.event("b", 2)])
        try store.enqueue([Self.event("a", 3)])
        try store.enqueue([Self.event("a", 4)])
        let seqs = { (owner: BundleID) in try store.allQueuedEvents(for: owner).map(\.seq) }
        #expect(try seqs("a") == [1, 3, 4])

        #expect(throws: LocationAckRefusal.notDelivered(through: 4, deliveredThrough: 3)) {
            try store.acknowledge("a", through: 4, deliveredThrough: 3)
        }
        #expect(throws: LocationAckRefusal.notDelivered(through: 1_000_000, deliveredThrough: 3)) {
            try store.acknowledge("a", through: 1_000_000, deliveredThrough: 3)
        }
        #expect(throws: LocationAckRefusal.notOwn(through: 2)) {
            try store.acknowledge("a", through: 2, deliveredThrough: 3)
        }
        // b was sent nothing on its connection: it cannot acknowledge its own event, nor a's.
        #expect(throws: LocationAckRefusal.notDelivered(through: 2, deliveredThrough: 0)) {
            try store.acknowledge("b", through: 2, deliveredThrough: 0)
        }
        #expect(try seqs("a") == [1, 3, 4], "a refused acknowledgement deletes nothing")
        #expect(try seqs("b") == [2])

        #expect(try store.acknowledge("a", through: 3, deliveredThrough: 3) == 2)
        #expect(try seqs("a") == [4], "the undelivered event stays")
        #expect(try seqs("b") == [2], "another app's queue is untouched")
        #expect(try store.acknowledge("b", through: 2, deliveredThrough: 2) == 1)
        #expect(try seqs("b").isEmpty)

        let message = LocationAckRefusal.notDelivered(through: 4, deliveredThrough: 3).description
        #expect(message.contains("LOCATION_ACK through 4") && message.contains("only through 3"))
    }

    @Test(
        "a full disk: queueing fails loudly, every stored event survives, writes resume once space is freed",
        .enabled(if: SmallTmpfs.canMount, "mounting a tmpfs needs root and mount(2)"))
    func diskFullQueue() throws {
        let directory = try TemporaryDirectory(prefix: "full")
        defer { directory.remove() }
        let disk = try SmallTmpfs(at: directory.appending("state"), size: "2m")
        defer { disk.unmount() }
        var store: StateStore? = try StateStore(directory: disk.path)
        var stored: [Int] = []
        for index in 0..<50 {
            try store!.enqueue([Self.event("rec", index)])
            stored.append(index)
        }
        try disk.fill()

        // Space left in the WAL's existing pages is used first; then the commit fails.
        var failure: (any Error)?
        for index in 50..<20_000 {
            do {
                try store!.enqueue([Self.event("rec", index)])
                stored.append(index)
            } catch {
                failure = error
                break
            }
        }
        let error = try #require(failure, "20,000 fixes fit on a full 2 MiB disk?")
        #expect("\(error)".contains("full"), "\(error)")
        let health = store!.health.status
        #expect(health.state == .failing)
        #expect(health.lastError?.contains("disk full") == true, "\(health)")
        #expect(health.unstoredEvents == 1)
        #expect(throws: (any Error).self) { try store!.enqueue([Self.event("rec", 99_999)]) }
        #expect(store!.health.status.unstoredEvents == 2)

        // Everything committed before is still there, in order, while the disk is full.
        let times = { try store!.allQueuedEvents(for: "rec").map { Int($0.location.timestamp - 1_750_000_000) } }
        #expect(try times() == stored)

        try disk.free()
        try store!.enqueue([Self.event("rec", 100_000)])
        #expect(store!.health.status.state == .ok)
        #expect(store!.health.status.lastError?.contains("disk full") == true, "the past failure stays visible")
        #expect(try times() == stored + [100_000])

        // And after a restart of the store (a new daemon), all of it is read back.
        store = nil
        let reopened = try StateStore(directory: disk.path)
        #expect(
            try reopened.allQueuedEvents(for: "rec").map { Int($0.location.timestamp - 1_750_000_000) }
                == stored + [100_000])
    }

    @Test(
        "with a reserve, a disk an app filled is given back to the daemon's commits: far more commit than without it, the failure is named, and the reserve is taken back once there is room",
        .enabled(if: SmallTmpfs.canMount, "mounting a tmpfs needs root and mount(2)"))
    func reserveKeepsCommitting() throws {
        /// Commits on a filled 4 MiB disk until one fails; the store, and how many committed.
        func commitsAfterFill(reserve: Int, prefix: String) throws -> (
            count: Int, store: StateStore, disk: SmallTmpfs, directory: TemporaryDirectory
        ) {
            let directory = try TemporaryDirectory(prefix: prefix)
            let disk = try SmallTmpfs(at: directory.appending("state"), size: "4m")
            let store = try StateStore(directory: disk.path, reserveBytes: reserve)
            for index in 0..<20 { try store.enqueue([Self.event("rec", index)]) }
            try disk.fill()
            var count = 0
            for index in 20..<20_000 {
                guard (try? store.enqueue([Self.event("rec", index)])) != nil else { break }
                count += 1
            }
            return (count, store, disk, directory)
        }
        let without = try commitsAfterFill(reserve: 0, prefix: "noreserve")
        defer {
            without.disk.unmount()
            without.directory.remove()
        }
        #expect(without.store.reserve.status.note?.contains("--state-reserve 0") == true)
        let with = try commitsAfterFill(reserve: 1 << 20, prefix: "reserve")
        defer {
            with.disk.unmount()
            with.directory.remove()
        }
        // A mebibyte is 256 pages: at about three a commit (here: 83 against none), 50 more at least.
        #expect(with.count >= without.count + 50, "with a reserve \(with.count), without \(without.count)")
        let status = with.store.storageStatus
        #expect(status.reserveReleases == 1 && status.reserveBytes == 0, "\(status)")
        #expect(status.lastError?.contains("disk full") == true, "\(status)")
        #expect(!FileManager.default.fileExists(atPath: with.disk.path + "/reserve"))

        // Room again: the next commit takes the reserve back.
        try with.disk.free()
        try with.store.enqueue([Self.event("rec", 30_000)])
        #expect(with.store.storageStatus.reserveBytes == 1 << 20)
        var info = stat()
        #expect(stat(with.disk.path + "/reserve", &info) == 0 && Int(info.st_blocks) * 512 >= 1 << 20)
    }
}
