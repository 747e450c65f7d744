import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// What one attempt at a transfer came to. What a failure means (retry when, or fail) is
/// Core's rule (``TransferFailure/outcome(url:retry:backoff:now:using:)``); the attempt only
/// says what happened.
package enum TransferAttemptOutcome: Sendable {
    /// A response arrived and (for a download) its whole body is in the partial file.
    case finished(TransferResponse)
    /// It failed, as Core names failures.
    case failed(TransferFailure)
    /// The server would not resume what is on disk: it was discarded; start again now.
    case startAgain(String)
    /// The attempt was cancelled.
    case cancelled
}

/// What an attempt reports as it goes, for progress notices and for the store.
package struct TransferProgress: Sendable {
    /// Body bytes in the partial file (download) or sent (upload).
    package var bytes: Int64
    /// The whole body's length when known, else -1.
    package var expected: Int64
}

/// A response head's facts an attempt needs kept before the body comes: the validator a
/// later resume sends, and how much was thrown away because the server would not resume.
package struct TransferResponseStart: Sendable {
    /// `ETag`, else `Last-Modified`.
    package var validator: String?
    /// Bytes of a partial file discarded to start again from zero.
    package var discarded: Int64
    /// The body's total length, or -1.
    package var expected: Int64
}
