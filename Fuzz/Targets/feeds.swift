// Fuzz target `feeds`: a feed document as a web server serves it, read by the samples:
// FeedReader's `FeedParser` (RSS 2.0 and 1.0, Atom, JSON Feed) and Podcasts'
// `EnclosureParser` (an RSS 2.0 feed's `<enclosure>`s). Both are compiled into this harness
// with the few files they need (their error and item types), as they are self-contained.

import Foundation

/// Where the podcast feed was fetched from: relative enclosure URLs resolve against it.
let feedURL = URL(string: "https://example.org/podcast.xml")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeeds(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(UnsafeBufferPointer(start: start, count: count))

    do {
        let feed = try FeedParser.parse(data)
        for item in feed.items {
            precondition(!item.id.isEmpty, "an item without an identifier in \(feed)")
        }
    } catch {
        precondition(!error.description.isEmpty, "a refusal without a reason")
    }

    do {
        for enclosure in try EnclosureParser.parse(data, base: feedURL) {
            // Podcasts parses the address again before downloading it, and skips it if it fails.
            if let scheme = URL(string: enclosure.url)?.scheme {
                precondition(scheme == "http" || scheme == "https", "an enclosure at \(enclosure.url)")
            }
        }
    } catch {
        precondition(!error.description.isEmpty, "a refusal without a reason")
    }
    return 0
}
