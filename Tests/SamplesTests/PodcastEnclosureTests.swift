import Foundation
import Testing

@testable import Podcasts

/// Podcasts reads an RSS feed's enclosures: one per item, titled, resolved against the feed.
@Suite("Podcasts: RSS enclosures", .timeLimit(.minutes(5)))
struct PodcastEnclosureTests {
    private func parse(_ text: String, base: String? = nil) throws -> [Enclosure] {
        try EnclosureParser.parse(Data(text.utf8), base: base.flatMap(URL.init(string:)))
    }

    @Test("each item's enclosure with its title, type and length, in the feed's order")
    func items() throws {
        let enclosures = try parse(
            """
            <?xml version="1.0"?>
            <rss version="2.0"><channel><title>Lake Bled</title>
            <item><title>Ice &amp; snow</title><enclosure url="http://h/one.wav" type="audio/wav" length="1200"/></item>
            <item><title><![CDATA[Rowing <regatta>]]></title><enclosure url="https://h/two.wav" length="0"/></item>
            </channel></rss>
            """)
        #expect(
            enclosures == [
                Enclosure(title: "Ice & snow", url: "http://h/one.wav", type: "audio/wav", length: 1200),
                Enclosure(title: "Rowing <regatta>", url: "https://h/two.wav", type: nil, length: 0),
            ])
    }

    @Test("items without an enclosure or with another scheme are skipped; a relative URL resolves")
    func skipsAndResolves() throws {
        let enclosures = try parse(
            """
            <rss version="2.0"><channel><title>Feed title, not an episode</title>
            <item><title>Text only</title></item>
            <item><title>FTP</title><enclosure url="ftp://h/x.wav"/></item>
            <item><enclosure url="media/three.wav"/></item>
            </channel></rss>
            """, base: "http://127.0.0.1:8000/feeds/podcast.xml")
        #expect(enclosures.map(\.url) == ["http://127.0.0.1:8000/feeds/media/three.wav"])
        #expect(enclosures.map(\.title) == ["three.wav"])
    }

    @Test("not XML, or not RSS, is an error that says so")
    func errors() {
        #expect(throws: PodcastError.self) { try parse("<rss><channel>") }
        #expect(throws: PodcastError("not an RSS feed: the root element is <feed>, expected <rss>")) {
            try parse("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>x</title></feed>")
        }
    }

    @Test("subscribe takes http and https URLs only, naming what is wrong")
    func feedURL() throws {
        #expect(try PodcastCommand.feedURL("http://127.0.0.1:8000/feed.xml").host == "127.0.0.1")
        #expect(throws: PodcastError("URL 'file:///tmp/feed.xml' is file, not http or https")) {
            try PodcastCommand.feedURL("file:///tmp/feed.xml")
        }
        #expect(throws: PodcastError("URL 'feed.xml' is not a URL")) { try PodcastCommand.feedURL("feed.xml") }
    }
}
