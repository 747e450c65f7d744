import Foundation

/// Limits checked before a property list reaches Foundation's parser, which recurses once
/// per nesting level: a few kilobytes of `<array><array>...` would otherwise overflow the
/// stack and take the daemon down with one bad bundle.
enum PropertyListLimits {
    /// The deepest XML nesting of arrays and dictionaries accepted; a manifest needs three.
    static let maximumXMLDepth = 32
    /// The most objects a binary property list may hold; a manifest holds a few dozen, and
    /// nesting cannot be deeper than the object count.
    static let maximumBinaryObjects = 4096

    /// Why the bytes are too deep or too many to parse safely, or `nil` when they are fine.
    static func problem(with data: Data) -> String? {
        if data.starts(with: Data("bplist".utf8)) {
            return binaryProblem(data)
        }
        // Foundation also reads OpenStep text plists; a manifest is XML or binary.
        let firstByte = data.first { !" \t\r\n".utf8.contains($0) && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }
        guard firstByte == UInt8(ascii: "<") else {
            return "not a valid property list (XML or binary)"
        }
        return xmlProblem(data)
    }

    /// Reads the object count from the binary trailer (its last 32 bytes).
    private static func binaryProblem(_ data: Data) -> String? {
        guard data.count >= 40 else { return nil }  // too short to parse; the decoder refuses it
        let trailer = data.suffix(32)
        let countBytes = trailer.dropFirst(8).prefix(8)
        let count = countBytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Every object takes at least a byte and an offset-table entry: a larger count is
        // garbage, which the decoder refuses in its own words.
        if count > UInt64(maximumBinaryObjects) && count <= UInt64(data.count) {
            return
                "a binary property list of \(count) objects, more than the \(maximumBinaryObjects) a manifest may hold"
        }
        return nil
    }

    /// Counts `<array>` and `<dict>` nesting, skipping comments and self-closing tags.
    private static func xmlProblem(_ data: Data) -> String? {
        let bytes = [UInt8](data)
        var depth = 0
        var index = 0
        let open = UInt8(ascii: "<")
        let close = UInt8(ascii: ">")
        while index < bytes.count {
            guard bytes[index] == open else {
                index += 1
                continue
            }
            // Comments, CDATA and processing instructions are opaque: tags inside them
            // must not count, or a run of closing tags there would buy extra depth.
            var skipped = false
            for (opening, closing) in opaqueSections where bytes[index...].starts(with: opening) {
                guard let end = find(closing, in: bytes, from: index + opening.count) else { return nil }
                index = end + closing.count
                skipped = true
                break
            }
            if skipped { continue }
            guard let end = bytes[index...].firstIndex(of: close) else { return nil }
            let tag = bytes[(index + 1)..<end]
            let selfClosing = tag.last == UInt8(ascii: "/")
            let name = tagName(tag)
            switch name {
            case "array" where !selfClosing, "dict" where !selfClosing:
                depth += 1
                if depth > maximumXMLDepth {
                    return "nested deeper than \(maximumXMLDepth) levels of arrays and dictionaries"
                }
            case "/array", "/dict":
                depth = max(0, depth - 1)
            default:
                break
            }
            index = end + 1
        }
        return nil
    }

    private static let opaqueSections: [(opening: [UInt8], closing: [UInt8])] = [
        (Array("<!--".utf8), Array("-->".utf8)),
        (Array("<![CDATA[".utf8), Array("]]>".utf8)),
        (Array("<?".utf8), Array("?>".utf8)),
    ]

    /// The element name of a tag's inside (`array`, `/dict`), without attributes.
    private static func tagName(_ tag: ArraySlice<UInt8>) -> String {
        var end = tag.startIndex
        if end < tag.endIndex && tag[end] == UInt8(ascii: "/") { end += 1 }
        while end < tag.endIndex, !" /\t\r\n".utf8.contains(tag[end]) { end += 1 }
        return String(decoding: tag[tag.startIndex..<end], as: UTF8.self)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
