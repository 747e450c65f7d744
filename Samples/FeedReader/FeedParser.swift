import Foundation
import SampleSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the three feed formats in use: RSS (2.0 and 1.0), Atom, and JSON Feed.
enum FeedParser {
    /// Parses a feed document.
    /// - Parameter data: The document as served.
    /// - Returns: The feed's title and entries.
    /// - Throws: ``FeedError`` naming the format and what is wrong.
    static func parse(_ data: Data) throws(FeedError) -> Feed {
        let first = data.first {
            !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF)
        }
        guard let first else { throw FeedError("the feed is empty") }
        return first == UInt8(ascii: "{") ? try parseJSONFeed(data) : try parseXML(data)
    }

    // MARK: RSS and Atom

    private static func parseXML(_ data: Data) throws(FeedError) -> Feed {
        // What XMLParser would crash on rather than fail: refused first.
        if let problem = XMLParserGuard.problem(with: data) {
            throw FeedError("the XML cannot be read safely: \(problem)")
        }
        let parser = XMLParser(data: data)
        let collector = XMLFeedCollector()
        parser.delegate = collector
        parser.shouldProcessNamespaces = true
        // swift-corelibs-foundation's parse() returns true after some errors (a document cut
        // short, mismatched tags) and only sets parserError: both are checked.
        let parsed = parser.parse()
        if let error = collector.error ?? (parsed ? nil : (parser.parserError, parser.lineNumber)) {
            throw FeedError("not well-formed XML at line \(error.line): \(describe(error.error))")
        }
        guard let root = collector.root, XMLFeedCollector.roots.contains(root) else {
            throw FeedError(
                "not a feed: the document's root element is <\(collector.root ?? "none")>; "
                    + "expected <rss>, <rdf:RDF> (RSS 1.0) or <feed> (Atom)")
        }
        return Feed(title: collector.title, items: collector.items)
    }

    /// XMLParser's errors carry only a code on Linux (no message): the common ones in words.
    /// The codes are libxml2's, which are also `NSXMLParserError`'s numbers on Apple's
    /// platforms (swift-corelibs-foundation's `XMLParser.ErrorCode` numbers them differently).
    private static func describe(_ error: (any Error)?) -> String {
        guard let error else { return "unknown error" }
        let code = (error as NSError).code
        switch code {
        case 4: return "the document is empty"
        case 5: return "the document ends before its elements are closed"
        case 9: return "an invalid character"
        case 26: return "an undefined entity"
        case 76: return "an end tag does not match its start tag"
        default: return "XML error \(code)"
        }
    }

    // MARK: JSON Feed

    /// JSON Feed 1.x (https://jsonfeed.org/version/1.1), only the fields the reader keeps.
    private struct JSONFeed: Decodable {
        struct Item: Decodable {
            var id: String?
            var url: String?
            var title: String?
            var date_published: String?
        }
        var version: String
        var title: String?
        var items: [Item]
    }

    private static func parseJSONFeed(_ data: Data) throws(FeedError) -> Feed {
        let feed: JSONFeed
        do {
            feed = try JSONDecoder().decode(JSONFeed.self, from: data)
        } catch let error as DecodingError {
            throw FeedError("not a JSON Feed: \(describe(error))")
        } catch {
            throw FeedError("not a JSON Feed: \(error)")
        }
        guard feed.version.hasPrefix("https://jsonfeed.org/version/") else {
            throw FeedError("not a JSON Feed: version is '\(feed.version)', expected https://jsonfeed.org/version/1.1")
        }
        let items = feed.items.compactMap { item -> FeedItem? in
            guard let id = item.id ?? item.url ?? item.title, !id.isEmpty else { return nil }
            return FeedItem(id: id, title: item.title ?? "", link: item.url, published: item.date_published)
        }
        return Feed(title: feed.title ?? "", items: items)
    }

    /// A decoding error as a field path and a reason: `items[2].id: expected a string`.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
            return text.isEmpty ? "the document" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type == String.self ? "a string" : "\(type)")"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)): null"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Collects a feed's title and entries while `XMLParser` walks an RSS or Atom document.
private final class XMLFeedCollector: NSObject, XMLParserDelegate {
    /// The root elements of the formats read (local names).
    static let roots: Set<String> = ["rss", "RDF", "feed"]

    private(set) var root: String?
    private(set) var title = ""
    private(set) var items: [FeedItem] = []
    /// The first error, with its line (XMLParser goes on after some).
    private(set) var error: (error: (any Error)?, line: Int)?

    private var path: [String] = []
    private var text = ""
    /// The fields of the entry being read, by local element name.
    private var entry: [String: String]?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        if root == nil { root = elementName }
        path.append(elementName)
        text = ""
        if elementName == "item" || elementName == "entry" {
            entry = [:]
        } else if elementName == "link", entry != nil, let href = attributeDict["href"] {
            // Atom: the entry's page is its alternate link (rel may be left out).
            if (attributeDict["rel"] ?? "alternate") == "alternate", entry?["link"] == nil { entry?["link"] = href }
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if error == nil { error = (parseError, parser.lineNumber) }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        defer {
            path.removeLast()
            text = ""
        }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if var fields = entry {
            if elementName == "item" || elementName == "entry" {
                entry = nil
                let id = [fields["guid"], fields["id"], fields["link"], fields["title"]]
                    .compactMap { $0 }.first { !$0.isEmpty }
                guard let id else { return }
                let published = [fields["pubDate"], fields["published"], fields["updated"], fields["date"]]
                    .compactMap { $0 }.first { !$0.isEmpty }
                items.append(FeedItem(id: id, title: fields["title"] ?? "", link: fields["link"], published: published))
            } else if fields[elementName] == nil, !value.isEmpty {
                fields[elementName] = value
                entry = fields
            }
        } else if elementName == "title", title.isEmpty, path.count >= 2,
            ["channel", "feed"].contains(path[path.count - 2])
        {
            title = value
        }
    }
}
