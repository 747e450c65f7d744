import BackgrounderTestSupport
import Foundation
import Testing

@testable import FeedReader

@Suite("FeedReader's change detection: validators, content hash, items", .timeLimit(.minutes(5)))
struct FeedSnapshotTests {
    static let source = "http://127.0.0.1:8080/feed.xml"
    static let now = Date(timeIntervalSince1970: 1_718_000_000)
    static let etag = FeedValidators(etag: "\"v1\"", lastModified: "Mon, 10 Jun 2024 06:13:20 GMT")

    private static func document(_ items: [(String, String)], buildDate: String = "Mon, 01 Jan 2024") -> FeedResponse {
        .document(Data(FeedDocuments.rss(items, buildDate: buildDate).utf8), etag)
    }

    /// A snapshot after a first fetch of A and B.
    private static func fetchedOnce() throws -> FeedSnapshot {
        try FeedSnapshot().updated(with: document([("b", "B"), ("a", "A")]), from: source, at: now).snapshot
    }

    @Test("the first fetch is new data: every item is new, the validators and hash are kept")
    func firstFetch() throws {
        let update = try FeedSnapshot().updated(
            with: Self.document([("b", "B"), ("a", "A")]), from: Self.source, at: Self.now)
        #expect(update.changed)
        #expect(update.newItems.map(\.id) == ["b", "a"])
        #expect(update.snapshot.items.map(\.id) == ["b", "a"])
        #expect(update.snapshot.source == Self.source)
        #expect(update.snapshot.validators == Self.etag)
        #expect(update.snapshot.contentHash != nil)
        #expect(update.snapshot.changedAt == Self.now && update.snapshot.checkedAt == Self.now)
    }

    @Test("304 Not Modified is no data; items and validators stay")
    func notModified() throws {
        let stored = try Self.fetchedOnce()
        let later = Self.now.addingTimeInterval(900)
        let update = try stored.updated(with: .notModified, from: Self.source, at: later)
        #expect(!update.changed && update.how == "not modified")
        #expect(update.snapshot.items == stored.items && update.snapshot.validators == stored.validators)
        #expect(update.snapshot.checkedAt == later && update.snapshot.changedAt == Self.now)
    }

    @Test("the same document again (a server without validators) is no data, found by its hash")
    func sameContent() throws {
        let stored = try Self.fetchedOnce()
        let update = try stored.updated(
            with: .document(Data(FeedDocuments.rss([("b", "B"), ("a", "A")]).utf8), FeedValidators()),
            from: Self.source, at: Self.now)
        #expect(!update.changed && update.how == "same content")
    }

    @Test("a document that only moved its lastBuildDate is no data: the items are the same")
    func sameItems() throws {
        let stored = try Self.fetchedOnce()
        let update = try stored.updated(
            with: Self.document([("b", "B"), ("a", "A")], buildDate: "Tue, 02 Jan 2024"), from: Self.source,
            at: Self.now)
        #expect(!update.changed && update.how == "same items")
        #expect(update.snapshot.contentHash != stored.contentHash)
    }

    @Test("a new item is new data, first in the list")
    func newItem() throws {
        let stored = try Self.fetchedOnce()
        let update = try stored.updated(
            with: Self.document([("c", "C"), ("b", "B"), ("a", "A")]), from: Self.source, at: Self.now)
        #expect(update.changed)
        #expect(update.newItems.map(\.id) == ["c"])
        #expect(update.snapshot.items.map(\.id) == ["c", "b", "a"])
    }

    @Test("an edited item is new data without new items")
    func editedItem() throws {
        let stored = try Self.fetchedOnce()
        let update = try stored.updated(
            with: Self.document([("b", "B, corrected"), ("a", "A")]), from: Self.source, at: Self.now)
        #expect(update.changed && update.newItems.isEmpty)
        #expect(update.snapshot.items.first?.title == "B, corrected")
    }

    @Test("an item that left the feed is kept after the others, and its leaving is no data")
    func itemLeft() throws {
        let stored = try Self.fetchedOnce()
        let update = try stored.updated(with: Self.document([("b", "B")]), from: Self.source, at: Self.now)
        #expect(!update.changed)
        #expect(update.snapshot.items.map(\.id) == ["b", "a"])
    }

    @Test("an item listed twice is kept once")
    func duplicate() throws {
        let update = try FeedSnapshot().updated(
            with: Self.document([("a", "A"), ("a", "A again")]), from: Self.source, at: Self.now)
        #expect(update.snapshot.items.map(\.title) == ["A"])
    }

    @Test("validators go only to the source they came from; another source starts afresh")
    func anotherSource() throws {
        let stored = try Self.fetchedOnce()
        #expect(stored.validators(for: Self.source) == Self.etag)
        #expect(stored.validators(for: "http://elsewhere/feed") == FeedValidators())
        let update = try stored.updated(
            with: Self.document([("b", "B"), ("a", "A")]), from: "http://elsewhere/feed", at: Self.now)
        #expect(update.changed && update.newItems.map(\.id) == ["b", "a"])
        #expect(update.snapshot.source == "http://elsewhere/feed")
    }

    @Test("at most maximumItems are kept, the oldest dropped")
    func cap() throws {
        var stored = FeedSnapshot(source: Self.source)
        stored.items = (0..<FeedSnapshot.maximumItems).map { FeedItem(id: "old\($0)", title: "") }
        let update = try stored.updated(with: Self.document([("new", "New")]), from: Self.source, at: Self.now)
        #expect(update.snapshot.items.count == FeedSnapshot.maximumItems)
        #expect(update.snapshot.items.first?.id == "new")
        #expect(update.snapshot.items.last?.id == "old\(FeedSnapshot.maximumItems - 2)")
    }

    @Test("a changed document that is not a feed is an error, and nothing is stored")
    func notAFeed() throws {
        let stored = try Self.fetchedOnce()
        #expect(throws: FeedError.self) {
            try stored.updated(with: .document(Data("<html/>".utf8), FeedValidators()), from: Self.source, at: Self.now)
        }
    }

    @Test("the snapshot survives items.json")
    func roundTrip() throws {
        let directory = try TemporaryDirectory(prefix: "feed")
        defer { directory.remove() }
        let stored = try Self.fetchedOnce()
        try FeedStore.save(stored, to: directory.path + "/items.json")
        #expect(try FeedStore.load(directory.path + "/items.json") == stored)
        #expect(try FeedStore.load(directory.path + "/none.json") == FeedSnapshot())
        try Data("{".utf8).write(to: URL(fileURLWithPath: directory.path + "/bad.json"))
        #expect {
            try FeedStore.load(directory.path + "/bad.json")
        } throws: { error in
            "\(error)".hasPrefix(directory.path + "/bad.json cannot be read")
        }
    }
}
