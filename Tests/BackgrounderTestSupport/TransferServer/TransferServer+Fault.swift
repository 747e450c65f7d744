extension TransferServer {
    /// A way the server misbehaves for a path, set with ``TransferServer/inject(_:at:times:)``.
    ///
    /// Several faults may be active on one path at once: a `status` or `redirect` answers
    /// instead of the document; the body faults (`ignoreRange`, `drip`, `cutAfter`,
    /// `stallAfter`, `shortBody`, `longBody`, `noLength`) combine, the earliest stop winning.
    public enum Fault: Sendable, Hashable {
        /// Answers this status with a short text body instead of the document; `retryAfter`
        /// adds `Retry-After: SECONDS` (for 503 and 429).
        case status(Int, retryAfter: Int? = nil)
        /// Answers a redirect (302 unless told) to `location`: a path on this server or a whole
        /// URL. Two redirects pointing at each other make a loop.
        case redirect(to: String, status: Int = 302)
        /// Answers 200 with the whole document whatever `Range` asks, as a server without
        /// range support does.
        case ignoreRange
        /// Closes the connection after this many body bytes (no error, no end: a reset
        /// network). For an upload, closes after receiving that many bytes.
        case cutAfter(bytes: Int64)
        /// Sends the body at about this many bytes a second (at least one a second).
        case drip(bytesPerSecond: Int)
        /// Sends this many body bytes, then nothing more while the connection stays open: a
        /// server that hangs, until the client gives up or the server shuts down.
        case stallAfter(bytes: Int64)
        /// `Content-Length` announces the whole body but `missing` bytes fewer are sent, then
        /// the connection closes.
        case shortBody(missing: Int64 = 1024)
        /// Sends `extra` bytes more than `Content-Length` announces, then closes.
        case longBody(extra: Int = 1024)
        /// Announces no length: the body goes out chunked, as from a server that streams what
        /// it makes, so only what arrives tells a client how big it is.
        case noLength
        /// Answers with the current validators, then gives the document a new `ETag` and
        /// `Last-Modified` (same bytes), as if it had been replaced: the next `If-Range` fails.
        case changeETag
    }
}

/// A fault and how many more requests it applies to (`nil`: all of them).
struct FaultRule: Sendable {
    var fault: TransferServer.Fault
    var remaining: Int?
}
