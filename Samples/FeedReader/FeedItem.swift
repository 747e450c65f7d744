/// One entry of a feed, as the reader keeps it.
struct FeedItem: Codable, Hashable, Sendable {
    /// What identifies the entry across fetches: its `guid` (RSS), `id` (Atom, JSON Feed), else
    /// its link, else its title.
    var id: String
    /// Its title (may be empty).
    var title: String
    /// Where it points, when it says.
    var link: String?
    /// When it was published, as the feed wrote it (feeds disagree on date formats, and the
    /// reader only shows it).
    var published: String?
}

/// A parsed feed: its title and entries, newest first as feeds list them.
struct Feed: Hashable, Sendable {
    /// The feed's title (may be empty).
    var title: String
    /// Its entries in the feed's order.
    var items: [FeedItem]
}
