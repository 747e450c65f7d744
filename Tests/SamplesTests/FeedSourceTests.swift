import BackgrounderTestSupport
import Foundation
import Testing

@testable import FeedReader

@Suite("FeedReader's feed.url", .timeLimit(.minutes(5)))
struct FeedSourceTests {
    @Test(
        "an http(s) URL, a file URL or an absolute path; the first line that is not blank or a comment",
        arguments: [
            ("http://127.0.0.1:8080/feed.xml", FeedSource.http(URL(string: "http://127.0.0.1:8080/feed.xml")!)),
            ("HTTPS://example.org/atom", .http(URL(string: "HTTPS://example.org/atom")!)),
            ("# my feed\n\n  http://example.org/rss  \nhttp://ignored", .http(URL(string: "http://example.org/rss")!)),
            ("file:///var/lib/feed.xml", .file("/var/lib/feed.xml")),
            ("/var/lib/feed.xml\n", .file("/var/lib/feed.xml")),
        ])
    func accepted(_ text: String, _ source: FeedSource) throws {
        #expect(try FeedSource(parsing: text) == source)
    }

    @Test(
        "anything else is refused with what it is",
        arguments: [
            ("", "no feed address: expected an http(s) URL or an absolute file path"),
            ("# only a comment\n", "no feed address: expected an http(s) URL or an absolute file path"),
            ("feed.xml", "'feed.xml' is neither an http(s) URL nor an absolute file path"),
            ("ftp://example.org/feed", "'ftp://example.org/feed' is neither an http(s) URL nor an absolute file path"),
            ("http://", "'http://' is not a valid URL (it needs a host)"),
        ])
    func refused(_ text: String, _ reason: String) {
        #expect(throws: FeedError(reason)) { try FeedSource(parsing: text) }
    }

    @Test("a missing feed.url says how to make one; a wrong one names the file")
    func files() throws {
        #expect(
            throws: FeedError(
                "no feed to read: /nonexistent/feed.url does not exist or cannot be read (FeedReader subscribe URL)")
        ) { try FeedSource.load(from: "/nonexistent/feed.url") }
        let directory = TemporaryDirectory.uniquePath("feedsource")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("feed.xml\n".utf8).write(to: URL(fileURLWithPath: directory + "/feed.url"))
        #expect(
            throws: FeedError("\(directory)/feed.url: 'feed.xml' is neither an http(s) URL nor an absolute file path")
        ) { try FeedSource.load(from: directory + "/feed.url") }
    }
}
