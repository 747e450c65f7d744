/// Feed documents in the three formats FeedReader reads, for its tests.
enum FeedDocuments {
    /// An RSS 2.0 channel; `items` are `(guid, title)` pairs, newest first.
    static func rss(title: String = "Lake news", _ items: [(String, String)], buildDate: String = "Mon, 01 Jan 2024")
        -> String
    {
        let entries = items.map { guid, title in
            """
            <item><title>\(title)</title><link>https://example.org/\(guid)</link>\
            <guid isPermaLink="false">\(guid)</guid><pubDate>Mon, 01 Jan 2024 10:00:00 GMT</pubDate></item>
            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">
            <channel><title>\(title)</title><link>https://example.org/</link>
            <lastBuildDate>\(buildDate)</lastBuildDate>
            \(entries.joined(separator: "\n"))
            </channel></rss>
            """
    }

    static let atom = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom">
          <title>Trail reports</title>
          <link rel="self" href="https://example.org/feed.atom"/>
          <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
          <updated>2024-06-10T18:30:02Z</updated>
          <entry>
            <title type="html">Vintgar &amp; the gorge</title>
            <link rel="edit" href="https://example.org/edit/2"/>
            <link href="https://example.org/vintgar"/>
            <id>urn:uuid:2</id>
            <updated>2024-06-10T18:30:02Z</updated>
            <author><name>Ana</name></author>
          </entry>
          <entry>
            <title>Ojstrica</title>
            <link rel="alternate" type="text/html" href="https://example.org/ojstrica"/>
            <id>urn:uuid:1</id>
            <published>2024-06-09T08:00:00Z</published>
            <updated>2024-06-09T09:00:00Z</updated>
          </entry>
        </feed>
        """

    static let jsonFeed = """
        {
          "version": "https://jsonfeed.org/version/1.1",
          "title": "Notes",
          "items": [
            {"id": "b", "url": "https://example.org/b", "title": "Second", "date_published": "2024-06-10T10:00:00Z"},
            {"id": "a", "content_text": "untitled"}
          ]
        }
        """
}
