import BackgroundKit
import BackgrounderTestSupport
import Foundation
import Testing

@testable import FeedReader

/// The refresher against a real HTTP server on the loopback interface, through URLSession:
/// what the app does in a fetch window, without the daemon.
@Suite("FeedReader's refresh over HTTP and from a file", .timeLimit(.minutes(5)))
@MainActor
struct FeedRefresherTests {
    @Test("new data, then 304 Not Modified is no data, then a changed feed is new data; the items are stored")
    func http() async throws {
        let directory = try TemporaryDirectory(prefix: "feedhttp")
        defer { directory.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.serve("/feed.xml", FeedDocuments.rss([("1", "One")]))
        let files = FeedFiles(directory: directory.path)
        try Data("\(server.baseURL)/feed.xml\n".utf8).write(to: URL(fileURLWithPath: files.source))
        let refresher = FeedRefresher(files: files)

        #expect(await refresher.refresh("test") == .newData)
        #expect(await refresher.refresh("test") == .noData)
        server.serve("/feed.xml", FeedDocuments.rss([("2", "Two"), ("1", "One")]))
        #expect(await refresher.refresh("test") == .newData)
        #expect(await refresher.refresh("test") == .noData)

        let requests = server.requests
        #expect(requests.map(\.status) == [200, 304, 200, 304])
        #expect(requests.map(\.ifNoneMatch) == [nil, "\"v1\"", "\"v1\"", "\"v2\""])
        let stored = try FeedStore.load(files.items)
        #expect(stored.items.map(\.title) == ["Two", "One"])
        #expect(stored.validators.etag == "\"v2\"")
    }

    @Test("a refresh asked for while one is under way joins it: one request, one result")
    func joins() async throws {
        let directory = try TemporaryDirectory(prefix: "feedjoin")
        defer { directory.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.serve("/feed.xml", FeedDocuments.rss([("1", "One")]))
        let files = FeedFiles(directory: directory.path)
        try Data("\(server.baseURL)/feed.xml".utf8).write(to: URL(fileURLWithPath: files.source))
        let refresher = FeedRefresher(files: files)
        async let first = refresher.refresh("task")
        async let second = refresher.refresh("fetch")
        let results = await [first, second]
        #expect(results == [.newData, .newData])
        #expect(server.requests.count == 1)
    }

    @Test("an HTTP error, a missing feed.url and a document that is not a feed are failures")
    func failures() async throws {
        let directory = try TemporaryDirectory(prefix: "feedfail")
        defer { directory.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let files = FeedFiles(directory: directory.path)
        let refresher = FeedRefresher(files: files)
        #expect(await refresher.refresh("test") == .failed)
        try Data("\(server.baseURL)/missing.xml".utf8).write(to: URL(fileURLWithPath: files.source))
        #expect(await refresher.refresh("test") == .failed)
        server.serve("/page", "<html><body>hello</body></html>", contentType: "text/html")
        try Data("\(server.baseURL)/page".utf8).write(to: URL(fileURLWithPath: files.source))
        #expect(await refresher.refresh("test") == .failed)
        #expect(!FileManager.default.fileExists(atPath: files.items))
    }

    @Test("a file source: a change is found by the content hash")
    func file() async throws {
        let directory = try TemporaryDirectory(prefix: "feedfile")
        defer { directory.remove() }
        let files = FeedFiles(directory: directory.path)
        let feed = directory.appending("feed.json")
        try Data(feed.utf8).write(to: URL(fileURLWithPath: files.source))
        try Data(FeedDocuments.jsonFeed.utf8).write(to: URL(fileURLWithPath: feed))
        let refresher = FeedRefresher(files: files)
        #expect(await refresher.refresh("test") == .newData)
        #expect(await refresher.refresh("test") == .noData)
        try Data(FeedDocuments.jsonFeed.replacingOccurrences(of: "Second", with: "Second, edited").utf8)
            .write(to: URL(fileURLWithPath: feed))
        #expect(await refresher.refresh("test") == .newData)
    }
}
