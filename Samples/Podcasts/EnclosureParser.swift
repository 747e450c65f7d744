import Foundation
import SampleSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads an RSS 2.0 feed's enclosures: one per `<item>` that has one, in the feed's order.
enum EnclosureParser {
    /// Parses a feed document.
    /// - Parameters:
    ///   - data: The document as served.
    ///   - base: The feed's URL, against which relative enclosure URLs resolve.
    /// - Returns: The enclosures with `http` or `https` URLs; others are skipped.
    /// - Throws: ``PodcastError`` when the document is not well-formed XML or not RSS.
    static func parse(_ data: Data, base: URL? = nil) throws(PodcastError) -> [Enclosure] {
        // What XMLParser would crash on rather than fail: refused first.
        if let problem = XMLParserGuard.problem(with: data) {
            throw PodcastError("the feed's XML cannot be read safely: \(problem)")
        }
        let parser = XMLParser(data: data)
        let collector = Collector()
        parser.delegate = collector
        // swift-corelibs-foundation's parse() can return true after an error and only set
        // parserError: both are checked.
        let parsed = parser.parse()
        if !parsed || parser.parserError != nil {
            throw PodcastError("the feed is not well-formed XML (line \(parser.lineNumber))")
        }
        guard collector.root == "rss" else {
            throw PodcastError("not an RSS feed: the root element is <\(collector.root ?? "none")>, expected <rss>")
        }
        return collector.items.compactMap { item in
            guard let address = item.url, let url = URL(string: address, relativeTo: base)?.absoluteURL,
                url.scheme == "http" || url.scheme == "https"
            else { return nil }
            let title = item.title.trimmingCharacters(in: .whitespacesAndNewlines)
            return Enclosure(
                title: title.isEmpty ? url.lastPathComponent : title, url: url.absoluteString, type: item.type,
                length: item.length.flatMap { Int64($0) })
        }
    }

    /// Collects each item's title and first enclosure.
    private final class Collector: NSObject, XMLParserDelegate {
        struct Item {
            var title = ""
            var url: String?
            var type: String?
            var length: String?
        }

        var root: String?
        var items: [Item] = []
        private var item: Item?
        private var inTitle = false

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if root == nil { root = name }
            switch name {
            case "item": item = Item()
            case "title": inTitle = item != nil
            case "enclosure" where item != nil && item?.url == nil:
                item?.url = attributes["url"]
                item?.type = attributes["type"]
                item?.length = attributes["length"]
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if inTitle { item?.title += string }
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            if inTitle { item?.title += String(decoding: block, as: UTF8.self) }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch name {
            case "title": inTitle = false
            case "item":
                if let item { items.append(item) }
                item = nil
            default: break
            }
        }
    }
}
