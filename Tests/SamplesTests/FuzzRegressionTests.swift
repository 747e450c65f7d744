import Foundation
import Testing

@testable import FeedReader
@testable import Podcasts

/// Inputs the `feeds` fuzz target (Fuzz/Targets/feeds.swift, docs/FUZZING.md) found to crash
/// FeedReader's and Podcasts' feed parsers inside swift-corelibs-foundation's XMLParser; each is
/// also in Fuzz/Corpus/feeds. `XMLParserGuard` (SampleSupport) refuses them first.
@Suite("Samples: inputs the feed fuzzer found", .timeLimit(.minutes(5)))
struct FuzzRegressionTests {
    /// A document and the words its refusal must hold.
    struct Refused: Sendable, CustomTestStringConvertible {
        var bytes: Data
        var reason: String
        var testDescription: String { String(decoding: bytes.prefix(60), as: UTF8.self) }
    }

    static let refused: [Refused] = [
        // Bytes that are not UTF-8 where libxml2 hands them to XMLParser as names, comments or
        // processing instructions, which XMLParser force-unwraps as UTF-8.
        Refused(bytes: Data(#"<rss v"#.utf8) + [0xDA, 0xDA] + Data(#"ion="2.0"/>"#.utf8), reason: "is not UTF-8"),
        Refused(
            bytes: Data(#"<?xml version="1.0"?><r"#.utf8) + [0xDA] + Data(#"ss version="2.0"></r"#.utf8) + [0xDA]
                + Data("ss>".utf8), reason: "is not UTF-8"),
        Refused(bytes: Data("<!-- ".utf8) + [0xDA, 0xDA] + Data(" --><rss/>".utf8), reason: "is not UTF-8"),
        Refused(bytes: Data("<?p".utf8) + [0xDA] + Data(" x?><rss/>".utf8), reason: "is not UTF-8"),
        // The first the fuzzer found: a mangled copy of a seed feed.
        Refused(
            bytes: Data(
                base64Encoded:
                    "PD9zIHZlcnNpb249IjIuMCI+PGNoYW5uZWw+PHRpdGxlPiZsYWtlOyBuZXdzPC90aXRsZT54bWwgdmVyc2lvbj0iMS4w"
                    + "Ij8+CjwhRE9DVFlQRSByc3MgWzwhRU5USVRZIGxha2UgIkJsZWAiPl0+Cjxyc3MgdmVyc9ra2tra2tra2traaW9uPSIy"
                    + "LjAiPjxjaGFubmVsPjx0aXRsZT4mbGFrZTsgbmV3czwvdGl0bGU+CjxpdGVtPjx0aXRsZT4mbGFrZTsgJiN4MjYzQTsg"
                    + "JiM5NzMxOzwvdGl0bGU+PGd1aWQ+ZTE8L2d1aWQ+PGVuY2xvc3VyZSB1cmw9Imh0dHBzOi8vaC8mbGFrZTsud2F2Ii8+"
                    + "PC9pdGVtPgo8L2NoYW5uZWw+PC9yc3M+Cg==")!, reason: "is not UTF-8"),
        // Declarations libxml2 does not act on, reading the bytes as UTF-8 all the same: a
        // malformed one (the second the fuzzer found), a UTF-16 label on 8-bit bytes.
        Refused(
            bytes: Data(#"<?xml version="1.0" encoding5"UTF-8"?><rss v"#.utf8) + [0xFF, 0xFF]
                + Data(#"="2.0"/>"#.utf8), reason: "names its encoding in a form"),
        Refused(
            bytes: Data(#"<?xml version="1.0" encoding="UTF-16"?><r"#.utf8) + [0xDA, 0xDA] + Data("ss/>".utf8),
            reason: "is not UTF-8"),
        // The fifth the fuzzer found: after a version libxml2 cannot read, it reads no encoding.
        Refused(
            bytes: Data(#"<?xml version="1.?0" encoding="ISO-8859-1"?><rss v"#.utf8) + [0xDA, 0xDA]
                + Data(#"ion="2.0"/>"#.utf8), reason: "names its encoding in a form"),
        // An encoding libxml2 does not know, or one in which markup is not ASCII.
        Refused(
            bytes: Data(#"<?xml version="1.0" encoding="FOO"?><rss/>"#.utf8), reason: "is in FOO, which"),
        Refused(
            bytes: Data(#"<?xml version="1.0" encoding="IBM037"?>"#.utf8) + [0x4C, 0x6F, 0xC2, 0x81, 0x6F, 0x6E],
            reason: "is in IBM037, which"),
        Refused(bytes: Data([0xFF, 0xFE, 0x3C, 0x00, 0x3F, 0x00]), reason: "UTF-16 or UTF-32"),
        // A processing instruction without data, which XMLParser reads from address 0 (the
        // third the fuzzer found), and DTD declarations with the same fault or that could
        // spell one with character references.
        Refused(bytes: Data(#"<rss version="2.0"><channel><?php?></channel></rss>"#.utf8), reason: "(<?php?>)"),
        Refused(
            bytes: Data(
                base64Encoded: "PD9zc2lvbnI/PgoBPgoBAERPIHZlcnNpb25yPz4KAT4KAQBETwo=")!, reason: "(<?ssionr?>)"),
        Refused(bytes: Data(#"<!DOCTYPE rss [<!ATTLIST rss a CDATA #IMPLIED>]><rss/>"#.utf8), reason: "DOCTYPE"),
        Refused(bytes: Data(#"<!DOCTYPE rss [<!NOTATION n SYSTEM "x">]><rss/>"#.utf8), reason: "DOCTYPE"),
        Refused(bytes: Data(#"<!DOCTYPE rss [<!ENTITY e "&#60;?p?&#62;">]><rss>&e;</rss>"#.utf8), reason: "DOCTYPE"),
        // The fourth the fuzzer found: a broken XML declaration in which a reading that skips
        // comments saw one begin, hiding <?php?> from it but not from libxml2.
        Refused(
            bytes: Data(#"<?xml ver{ "<!--ie<?orsion="2.0"><channel><?php?><title>x</title></channel>"#.utf8),
            reason: "(<?php?>)"),
    ]

    @Test("a feed XMLParser would crash on is refused, naming why", arguments: refused)
    func refusedBeforeXMLParser(document: Refused) {
        let feedError = #expect(throws: FeedError.self) { try FeedParser.parse(document.bytes) }
        #expect(feedError?.description.contains(document.reason) == true, "\(String(describing: feedError))")
        let podcastError = #expect(throws: PodcastError.self) { try EnclosureParser.parse(document.bytes) }
        #expect(
            podcastError?.description.contains(document.reason) == true, "\(String(describing: podcastError))")
    }

    @Test("a feed in an 8-bit encoding it declares, with a UTF-8 byte order mark, or a DOCTYPE of RSS 0.91 parses")
    func othersStillParse() throws {
        let latin1 =
            Data(#"<?xml version="1.0" encoding="ISO-8859-1"?><rss version="2.0"><channel><title>Caf"#.utf8)
            + [0xE9] + Data(#"</title><item><title>Cr"#.utf8) + [0xE8]
            + Data(#"me</title><enclosure url="http://h/a.wav"/></item></channel></rss>"#.utf8)
        #expect(try FeedParser.parse(latin1).title == "Café")
        #expect(try EnclosureParser.parse(latin1).map(\.title) == ["Crème"])

        let rss = #"<rss version="2.0"><channel><title>Bled</title></channel></rss>"#
        #expect(try FeedParser.parse(Data([0xEF, 0xBB, 0xBF]) + Data(rss.utf8)).title == "Bled")

        let old = """
            <?xml version="1.0"?>
            <!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" \
            "http://my.netscape.com/publish/formats/rss-0.91.dtd">
            <?xml-stylesheet type="text/xsl" href="rss.xsl"?>
            <rss version="0.91"><channel><title>Old</title><!-- a comment -->
            <item><title><![CDATA[<b>bold</b>]]></title><link>http://example.org/1</link></item></channel></rss>
            """
        #expect(try FeedParser.parse(Data(old.utf8)).items.map(\.title) == ["<b>bold</b>"])
    }
}
