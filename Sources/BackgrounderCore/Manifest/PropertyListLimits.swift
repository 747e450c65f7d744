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

    /// Reads the object count from the binary trailer (its last 32 bytes), then checks that
    /// every object lies whole before the offset table and refers only to objects that exist.
    ///
    /// Foundation's binary decoder traps, taking the daemon down, on some objects that do not
    /// fit, such as a UTF-16 string whose length runs past the end of the file (found by the
    /// `info-plist` fuzz target, docs/FUZZING.md), so the layout CFBinaryPList.c writes is
    /// checked before it gets the bytes.
    private static func binaryProblem(_ data: Data) -> String? {
        let invalid = "not a valid property list (XML or binary)"
        let bytes = [UInt8](data)
        guard bytes.count >= 8 + 1 + 32 else { return invalid }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let count = bigEndian(bytes, at: trailer + 8, size: 8)
        let top = bigEndian(bytes, at: trailer + 16, size: 8)
        let table = bigEndian(bytes, at: trailer + 24, size: 8)
        // Every object takes at least a byte and an offset-table entry: a larger count is
        // garbage, refused below as such.
        if count > UInt64(maximumBinaryObjects) && count <= UInt64(bytes.count) {
            return
                "a binary property list of \(count) objects, more than the \(maximumBinaryObjects) a manifest may hold"
        }
        // The count is at most the file's size here, so the products below cannot overflow.
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count >= 1,
            count <= UInt64(bytes.count), top < count, table >= 9, table <= UInt64(trailer),
            UInt64(trailer) - table >= count * UInt64(offsetSize)
        else { return invalid }
        let objects = BinaryObjects(bytes: bytes, end: Int(table), count: Int(count), referenceSize: referenceSize)
        for index in 0..<Int(count) {
            let offset = bigEndian(bytes, at: Int(table) + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < table, objects.isWellFormed(at: Int(offset)) else { return invalid }
        }
        return nil
    }

    /// An unsigned big-endian integer of `size` (at most 8) bytes.
    private static func bigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> UInt64 {
        bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The objects of a binary property list: the bytes from the header to the offset table.
    private struct BinaryObjects {
        let bytes: [UInt8]
        /// Where the offset table starts: no object may reach it.
        let end: Int
        /// How many objects the trailer declares.
        let count: Int
        /// Bytes in a reference to another object.
        let referenceSize: Int

        /// Whether the object at `offset` is of a known type, lies whole before ``end`` and
        /// refers only to objects that exist.
        func isWellFormed(at offset: Int) -> Bool {
            let marker = bytes[offset]
            let info = Int(marker & 0x0F)
            var cursor = offset + 1
            /// Whether `length` more bytes fit after the cursor.
            func fits(_ length: Int) -> Bool { length <= end - cursor }
            /// The low nibble, or for 0xF the integer object after the marker.
            func length() -> Int? {
                guard info == 0x0F else { return info }
                guard fits(1), bytes[cursor] >> 4 == 0x1 else { return nil }
                let size = 1 << Int(bytes[cursor] & 0x0F)
                guard size <= 8, fits(1 + size) else { return nil }
                let value = bigEndian(bytes, at: cursor + 1, size: size)
                cursor += 1 + size
                return value <= UInt64(end) ? Int(value) : nil
            }
            /// Whether `references` references fit and each names an object that exists.
            func referencesFit(_ references: Int) -> Bool {
                guard fits(references * referenceSize) else { return false }
                return (0..<references).allSatisfy {
                    bigEndian(bytes, at: cursor + $0 * referenceSize, size: referenceSize) < UInt64(count)
                }
            }
            switch marker >> 4 {
            case 0x0: return [0x0, 0x8, 0x9, 0xF].contains(info)  // null, false, true, fill
            case 0x1: return info <= 4 && fits(1 << info)  // integers of 1 to 16 bytes
            case 0x2: return (info == 2 || info == 3) && fits(1 << info)  // reals of 4 or 8 bytes
            case 0x3: return info == 3 && fits(8)  // dates
            case 0x4, 0x5: return length().map(fits) ?? false  // data, ASCII strings
            case 0x6: return length().map { fits(2 * $0) } ?? false  // UTF-16 strings
            case 0x8: return fits(info + 1)  // UIDs
            case 0xA, 0xC: return length().map(referencesFit) ?? false  // arrays, sets
            case 0xD: return length().map { referencesFit(2 * $0) } ?? false  // dictionaries
            default: return false
            }
        }
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
