import Foundation

/// What the server said lets it answer "not modified" next time (RFC 9110 validators).
struct FeedValidators: Codable, Hashable, Sendable {
    /// The `ETag` header, sent back as `If-None-Match`.
    var etag: String?
    /// The `Last-Modified` header, sent back as `If-Modified-Since`.
    var lastModified: String?
}

/// What the reader keeps between launches in `items.json`: the items, and what tells the next
/// fetch whether anything changed.
struct FeedSnapshot: Codable, Hashable, Sendable {
    /// The most items kept; older ones that left the feed are dropped first.
    static let maximumItems = 500

    /// The source these were fetched from; another source starts afresh.
    var source: String?
    /// The feed's title.
    var title = ""
    /// The items, newest first as the feed lists them, then older ones that left the feed.
    var items: [FeedItem] = []
    /// The validators of the last full response from ``source``.
    var validators = FeedValidators()
    /// A hash of the last document, to tell an unchanged one without parsing it (servers and
    /// files without validators).
    var contentHash: String?
    /// The last fetch that succeeded.
    var checkedAt: Date?
    /// The last fetch that brought something new.
    var changedAt: Date?
}

/// What a fetch brought back.
enum FeedResponse: Hashable, Sendable {
    /// `304 Not Modified`: the validators matched.
    case notModified
    /// A document, with the validators that came with it.
    case document(Data, FeedValidators)
}

/// The outcome of one fetch, before it is stored.
struct FeedUpdate: Hashable, Sendable {
    /// What to store.
    var snapshot: FeedSnapshot
    /// Items the reader had not seen, in feed order.
    var newItems: [FeedItem]
    /// Whether anything the reader shows changed (new, edited or reordered items, or the title).
    var changed: Bool
    /// Why nothing changed, or how the change was found: for the log.
    var how: String
}

extension FeedSnapshot {
    /// The validators to send to `source`: none for a source other than the stored one.
    func validators(for source: String) -> FeedValidators {
        source == self.source ? validators : FeedValidators()
    }

    /// Applies a fetch's response: whether the feed changed, and what to keep.
    ///
    /// A `304` is no change; a document whose hash is the stored one is no change (no need to
    /// parse it); otherwise it is parsed, its items go first and stored items it no longer
    /// lists follow, and it is a change when the items or the title differ from the stored
    /// ones (a document that only moved its `lastBuildDate` is not).
    /// - Parameters:
    ///   - response: What the fetch brought.
    ///   - source: Where it came from.
    ///   - now: The time of the fetch.
    /// - Throws: ``FeedError`` when the document is not a feed.
    func updated(with response: FeedResponse, from source: String, at now: Date) throws(FeedError) -> FeedUpdate {
        let sameSource = source == self.source
        var next = sameSource ? self : FeedSnapshot(source: source)
        next.checkedAt = now
        guard case .document(let data, let validators) = response else {
            return FeedUpdate(snapshot: next, newItems: [], changed: false, how: "not modified")
        }
        let hash = Self.hash(data)
        next.validators = validators
        next.contentHash = hash
        if sameSource, hash == contentHash {
            return FeedUpdate(snapshot: next, newItems: [], changed: false, how: "same content")
        }
        let feed = try FeedParser.parse(data)
        let known = Set(next.items.map(\.id))
        var seen = Set<String>()
        let fetched = feed.items.filter { seen.insert($0.id).inserted }
        let kept = next.items.filter { !seen.contains($0.id) }
        next.items = Array((fetched + kept).prefix(Self.maximumItems))
        next.title = feed.title
        let newItems = fetched.filter { !known.contains($0.id) }
        let changed = next.items != items || next.title != title || !sameSource
        if changed { next.changedAt = now }
        return FeedUpdate(
            snapshot: next, newItems: newItems, changed: changed, how: changed ? "changed" : "same items")
    }

    /// FNV-1a, 64 bits, in hex: enough to tell one version of a document from the next (it
    /// guards nothing against a server that wants to fool its reader).
    static func hash(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
