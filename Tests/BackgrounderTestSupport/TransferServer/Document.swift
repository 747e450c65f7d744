import NIOCore

/// A document the server answers a path with, and its validators.
struct Document: Sendable {
    /// Where the bytes are.
    enum Body: Sendable {
        /// A file, read from disk a chunk at a time for each response.
        case file(String)
        /// Bytes in memory (small documents).
        case data(ByteBuffer)
    }

    var body: Body
    /// Its length, taken when it was served: a file changed behind the server's back is
    /// served with the length it had.
    var size: Int64
    var contentType: String
    /// A strong `ETag`, quotes included.
    var etag: String
    /// An IMF-fixdate.
    var lastModified: String

    /// Whether an `If-Range` value names this version: the `ETag` (strong comparison, so a
    /// weak `W/` tag never matches) or the `Last-Modified` date, exactly.
    func matches(ifRange value: String) -> Bool {
        let value = value.trimmingCharacters(in: .whitespaces)
        return value == lastModified || (!value.hasPrefix("W/") && value == etag)
    }
}
