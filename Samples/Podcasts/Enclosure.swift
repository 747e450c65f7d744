/// An episode's media file as an RSS `<item>` announces it: `<enclosure url=… type=… length=…>`.
struct Enclosure: Sendable, Hashable {
    /// The item's title, or the file's name when the item has none.
    var title: String
    /// The media file's absolute `http` or `https` URL.
    var url: String
    /// The MIME type the feed claims (`audio/wav`), if any.
    var type: String?
    /// The length in bytes the feed claims, if any (feeds often say 0).
    var length: Int64?
}
