import Foundation
import Testing

@testable import FeedReader

@Suite("FeedReader's parser: RSS, Atom and JSON Feed", .timeLimit(.minutes(5)))
struct FeedParserTests {
    private static func parse(_ text: String) throws(FeedError) -> Feed {
        try FeedParser.parse(Data(text.utf8))
    }

    @Test("RSS 2.0: the channel's title, items in order with guid, link, pubDate; CDATA and entities read")
    func rss() throws {
        let feed = try Self.parse(FeedDocuments.rss([("2", "<![CDATA[Rain & <wind>]]>"), ("1", "Sun &amp; snow")]))
        #expect(feed.title == "Lake news")
        #expect(
            feed.items == [
                FeedItem(
                    id: "2", title: "Rain & <wind>", link: "https://example.org/2",
                    published: "Mon, 01 Jan 2024 10:00:00 GMT"),
                FeedItem(
                    id: "1", title: "Sun & snow", link: "https://example.org/1",
                    published: "Mon, 01 Jan 2024 10:00:00 GMT"),
            ])
    }

    @Test("RSS items without a guid are known by their link, then their title; an item with none is skipped")
    func rssFallbackIdentifiers() throws {
        let feed = try Self.parse(
            """
            <rss version="2.0"><channel><title>T</title>
            <item><title>Linked</title><link>https://example.org/x</link><dc:date xmlns:dc="http://purl.org/dc/elements/1.1/">2024-01-01</dc:date></item>
            <item><title>Only a title</title></item>
            <item><description>nothing to know it by</description></item>
            </channel></rss>
            """)
        #expect(feed.items.map(\.id) == ["https://example.org/x", "Only a title"])
        #expect(feed.items[0].published == "2024-01-01")
    }

    @Test("RSS 1.0 (RDF): items outside the channel are read")
    func rdf() throws {
        let feed = try Self.parse(
            """
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
            <channel rdf:about="https://example.org/"><title>Old school</title></channel>
            <item rdf:about="https://example.org/1"><title>One</title><link>https://example.org/1</link></item>
            </rdf:RDF>
            """)
        #expect(feed.title == "Old school")
        #expect(feed.items == [FeedItem(id: "https://example.org/1", title: "One", link: "https://example.org/1")])
    }

    @Test("Atom: the entry's alternate link (rel left out or given), its id, published before updated")
    func atom() throws {
        let feed = try Self.parse(FeedDocuments.atom)
        #expect(feed.title == "Trail reports")
        #expect(
            feed.items == [
                FeedItem(
                    id: "urn:uuid:2", title: "Vintgar & the gorge", link: "https://example.org/vintgar",
                    published: "2024-06-10T18:30:02Z"),
                FeedItem(
                    id: "urn:uuid:1", title: "Ojstrica", link: "https://example.org/ojstrica",
                    published: "2024-06-09T08:00:00Z"),
            ])
    }

    @Test("JSON Feed: id, url, title, date_published; a missing title is empty")
    func jsonFeed() throws {
        let feed = try Self.parse(FeedDocuments.jsonFeed)
        #expect(feed.title == "Notes")
        #expect(
            feed.items == [
                FeedItem(id: "b", title: "Second", link: "https://example.org/b", published: "2024-06-10T10:00:00Z"),
                FeedItem(id: "a", title: ""),
            ])
    }

    @Test(
        "what is not a feed is refused with the reason",
        arguments: [
            ("", "the feed is empty"),
            ("  \n ", "the feed is empty"),
            (
                "<html><body>Moved</body></html>",
                "not a feed: the document's root element is <html>; expected <rss>, <rdf:RDF> (RSS 1.0) or <feed> (Atom)"
            ),
            ("{\"title\": \"x\", \"items\": []}", "not a JSON Feed: version: missing"),
            (
                "{\"version\": \"1\", \"items\": []}",
                "not a JSON Feed: version is '1', expected https://jsonfeed.org/version/1.1"
            ),
            (
                "{\"version\": \"https://jsonfeed.org/version/1.1\", \"items\": [{\"id\": 7}]}",
                "not a JSON Feed: items[0].id: expected a string"
            ),
            ("{\"version\": \"https://jsonfeed.org/version/1.1\"}", "not a JSON Feed: items: missing"),
        ])
    func refused(_ text: String, _ reason: String) {
        #expect(throws: FeedError(reason)) { try Self.parse(text) }
    }

    @Test(
        "XML that is not well formed, or cut short, is refused with its line",
        arguments: [
            (
                "<rss version=\"2.0\">\n<channel>\n<item></channel></rss>",
                "not well-formed XML at line 3: an end tag does not match its start tag"
            ),
            (
                "<rss version=\"2.0\"><channel><item><title>Half",
                "not well-formed XML at line 1: the document ends before its elements are closed"
            ),
        ])
    func malformed(_ text: String, _ reason: String) {
        #expect(throws: FeedError(reason)) { try Self.parse(text) }
    }
}
