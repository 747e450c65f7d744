import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A GPX document as an XML parser sees it: every element's path, attributes and text. If
/// the document is not well-formed, parsing fails.
final class GPXOutline: NSObject, XMLParserDelegate {
    /// One element.
    struct Element {
        /// Names from the root, `gpx/trk/trkseg/trkpt`.
        var path: String
        var attributes: [String: String]
        var text = ""
        /// Names of the child elements, in document order.
        var children: [String] = []
    }

    /// Every element, in document order.
    private(set) var elements: [Element] = []
    private var open: [Int] = []
    private var failure: (any Error)?

    /// Parses a document.
    /// - Parameter data: The document.
    /// - Throws: The parser's error when it is not well-formed.
    init(_ data: Data) throws {
        super.init()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = self
        if !parser.parse() {
            throw failure ?? parser.parserError ?? CocoaError(.coderReadCorrupt)
        }
    }

    /// The elements at a path.
    func elements(at path: String) -> [Element] {
        elements.filter { $0.path == path }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        let parent = open.last.map { elements[$0].path + "/" } ?? ""
        if let index = open.last { elements[index].children.append(elementName) }
        elements.append(Element(path: parent + elementName, attributes: attributeDict))
        open.append(elements.count - 1)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let index = open.last { elements[index].text += string }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        open.removeLast()
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        failure = parseError
    }
}
