public import Foundation

/// What the samples that read feeds (FeedReader, Podcasts) check before they give a document
/// to `XMLParser`.
///
/// swift-corelibs-foundation's `XMLParser` takes the whole app down on documents libxml2 reads
/// without trouble, where Apple's reports a parse error. The `feeds` fuzz target found both
/// ways (docs/FUZZING.md):
///
/// - it force-unwraps every element and attribute name, comment and processing instruction as
///   UTF-8, so bytes that libxml2 hands on as UTF-8 but are not trap it
///   (`<rss v\u{DA}ersion="2.0">`);
/// - it takes the C strings of a processing instruction's data, an attribute declaration's
///   default, and a notation's or an unparsed entity's identifiers with `strlen` even when
///   libxml2 has none, reading address 0 (`<?php?>`, `<!ATTLIST rss a CDATA #IMPLIED>`).
///
/// So a document is refused unless it is UTF-8 or in an 8-bit or East Asian encoding that its
/// XML declaration names (libxml2 converts those to UTF-8 itself), and when it holds a
/// processing instruction without data or its DOCTYPE declares entities, attributes or
/// notations (an entity's text could spell the rest with character references), wherever the
/// bytes for these appear. Feeds do without all of these. In every encoding accepted, markup
/// is the ASCII bytes it looks like, so the check reads the bytes as they are.
public enum XMLParserGuard {
    /// Why the document is not given to `XMLParser`, or `nil` when it can be.
    /// - Parameter data: The document as served.
    /// - Returns: The reason, in words for the app's error.
    public static func problem(with data: Data) -> String? {
        let bytes = [UInt8](data)
        // libxml2 reads these as UTF-16, UTF-32 or EBCDIC, where markup is other bytes.
        if bytes.count >= 2
            && (bytes[0] == 0 || bytes[1] == 0 || bytes[0...1] == [0xFE, 0xFF] || bytes[0...1] == [0xFF, 0xFE])
        {
            return "the document is UTF-16 or UTF-32, which the feed readers do not read"
        }
        if bytes.starts(with: [0x4C, 0x6F, 0xA7, 0x94]) {
            return "the document is EBCDIC, which the feed readers do not read"
        }
        let hasByteOrderMark = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        var mustBeUTF8 = true
        switch declaredEncoding(bytes[(hasByteOrderMark ? 3 : 0)...]) {
        case .none, .utf8:
            break
        case .converted:
            // After a UTF-8 byte order mark the bytes must be UTF-8 whatever libxml2 makes of
            // the declaration.
            mustBeUTF8 = hasByteOrderMark
        case .unreadable(let reason):
            return reason
        }
        if mustBeUTF8, let offset = firstInvalidUTF8(data) {
            return "byte \(offset) is not UTF-8, and the document declares no other encoding the feed readers read"
        }
        return markupProblem(bytes)
    }

    /// The offset of the first byte that does not begin a valid UTF-8 sequence, or `nil`.
    static func firstInvalidUTF8(_ data: Data) -> Int? {
        var parser = Unicode.UTF8.ForwardParser()
        var bytes = data.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &bytes) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// What an XML declaration says about the encoding.
    enum Encoding: Equatable {
        /// No declaration, or one without an encoding.
        case none
        /// UTF-8; or UTF-16, which libxml2 ignores on bytes without zeros and reads as UTF-8.
        case utf8
        /// One of ``convertedEncodings``, which libxml2 converts to UTF-8.
        case converted
        /// Anything else, or a declaration libxml2 might read otherwise than this check.
        case unreadable(String)
    }

    /// Encodings libxml2 converts from (itself or through glibc's iconv) and in which markup is
    /// ASCII, by name in lower case: the ones feeds are served in besides UTF-8. Names, not
    /// prefixes: for a name iconv does not know, libxml2 goes on reading UTF-8. Not ISO-2022-JP:
    /// its escape sequences may sit between the bytes of `<?`.
    static let convertedEncodings: Set<String> = Set(
        (1...16).filter { $0 != 12 }.flatMap { ["iso-8859-\($0)", "iso8859-\($0)"] }
            + (1250...1258).flatMap { ["windows-\($0)", "cp\($0)"] }
            + [
                "latin1", "koi8-r", "koi8-u", "us-ascii", "ascii", "shift_jis", "sjis", "euc-jp", "euc-kr", "gb2312",
                "gbk", "gb18030", "big5",
            ])

    /// Reads the XML declaration at the start of `bytes`: `<?xml version="1.0"`, then maybe
    /// `encoding="NAME"` and `standalone="yes"`, then `?>`. One that names an encoding in any
    /// other shape is unreadable: libxml2 still finds the encoding in some (it reads it without
    /// a version, for one) and not in others (after a version such as `1.?0`, which the fuzzer
    /// found), and a check that read it otherwise could be fooled.
    static func declaredEncoding(_ bytes: ArraySlice<UInt8>) -> Encoding {
        guard bytes.starts(with: Array("<?xml".utf8)), bytes.count > 5, isSpace(bytes[bytes.startIndex + 5]) else {
            return .none
        }
        let end = find(Array("?>".utf8), in: bytes, from: bytes.startIndex) ?? bytes.endIndex
        let declaration = String(decoding: bytes[..<end], as: UTF8.self)
        guard declaration.contains("encoding") else { return .none }
        guard let name = encodingName(in: declaration + "?>") else {
            return .unreadable("the XML declaration names its encoding in a form the feed readers do not read")
        }
        let lowercased = name.lowercased()
        if ["utf-8", "utf8", "utf-16", "utf16"].contains(lowercased) { return .utf8 }
        if convertedEncodings.contains(lowercased) { return .converted }
        return .unreadable("the document is in \(name), which the feed readers do not read")
    }

    /// The encoding name of a declaration of exactly the shape ``declaredEncoding(_:)`` reads.
    private static func encodingName(in declaration: String) -> String? {
        var text = Substring(declaration)
        func skip(_ word: String) -> Bool {
            guard text.hasPrefix(word) else { return false }
            text = text.dropFirst(word.count)
            return true
        }
        func skipSpaces() -> Bool {
            let spaces = text.prefix { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
            text = text.dropFirst(spaces.count)
            return !spaces.isEmpty
        }
        /// `= "VALUE"` or `= 'VALUE'`.
        func value() -> Substring? {
            _ = skipSpaces()
            guard skip("=") else { return nil }
            _ = skipSpaces()
            guard let quote = text.first, quote == "\"" || quote == "'" else { return nil }
            text = text.dropFirst()
            let value = text.prefix { $0 != quote }
            guard value.count < text.count else { return nil }
            text = text.dropFirst(value.count + 1)
            return value
        }
        // libxml2 reads a version of a digit, a dot and digits; after any other it finds no encoding.
        func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }
        guard skip("<?xml"), skipSpaces(), skip("version"), let version = value(), let digit = version.first,
            isDigit(digit), version.dropFirst().first == ".", version.dropFirst(2).allSatisfy(isDigit),
            skipSpaces(), skip("encoding"),
            let name = value(), let first = name.first, first.isASCII, first.isLetter,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else { return nil }
        if skipSpaces(), skip("standalone") {
            guard let standalone = value(), standalone == "yes" || standalone == "no" else { return nil }
            _ = skipSpaces()
        }
        return skip("?>") && text.isEmpty ? String(name) : nil
    }

    /// A processing instruction without data, or a declaration of an entity, an attribute list
    /// or a notation, anywhere: also in comments and CDATA sections, since a malformed document
    /// can make libxml2 see markup where a simpler reading sees a comment (the fuzzer found one).
    static func markupProblem(_ bytes: [UInt8]) -> String? {
        let declarations = ["<!ENTITY", "<!ATTLIST", "<!NOTATION"].map { Array($0.utf8) }
        var index = 0
        while let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            let rest = bytes[open...]
            if rest.starts(with: Array("<?".utf8)) {
                // libxml2 gives a target followed straight by "?>" no data at all (a NULL).
                let target = bytes[(open + 2)...].prefix { !isSpace($0) && $0 != UInt8(ascii: "?") }
                if !target.isEmpty, bytes[target.endIndex...].starts(with: Array("?>".utf8)) {
                    return "a processing instruction without data (<?\(String(decoding: target, as: UTF8.self))?>)"
                }
            } else if declarations.contains(where: { rest.starts(with: $0) }) {
                return "its DOCTYPE declares entities, attributes or notations"
            }
            index = open + 1
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func find(_ needle: [UInt8], in bytes: ArraySlice<UInt8>, from start: Int) -> Int? {
        var index = start
        while index + needle.count <= bytes.endIndex {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
