import BackgrounderCore
import BackgrounderProtocol

/// What one attempt at a transfer came to.
enum TransferAttemptOutcome: Sendable {
    /// A response arrived and (for a download) its whole body is in the partial file.
    case finished(TransferResponse)
    /// A transient failure: try again, after the server's `Retry-After` when it gave one.
    case retry(reason: String, retryAfter: Duration?)
    /// A failure trying again will not mend.
    case failed(TransferError)
}

/// What an attempt reports as it goes, for progress notices and for the store.
struct TransferProgress: Sendable {
    /// Body bytes in the partial file (download) or sent (upload).
    var bytes: Int64
    /// The whole body's length when known, else -1.
    var expected: Int64
}

/// A response head's facts an attempt needs kept before the body comes: the validator a
/// later resume sends, and how much was thrown away because the server would not resume.
struct TransferResponseStart: Sendable {
    /// `ETag`, else `Last-Modified`.
    var validator: String?
    /// Bytes of a partial file discarded to start again from zero.
    var discarded: Int64
    /// The body's total length, or -1.
    var expected: Int64
}
