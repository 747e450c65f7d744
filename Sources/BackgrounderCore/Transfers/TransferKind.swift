/// What a background transfer moves, as `URLSessionDownloadTask` and `URLSessionUploadTask`.
public enum TransferKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A response body streamed to a file the app is handed when it is complete.
    case download
    /// A file's contents sent as the request body; the response is the app's to read.
    case upload
}

/// Where a transfer is, as `URLSessionTask.State` plus the reasons the system keeps it waiting.
public enum TransferState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Accepted but not moving: a condition, a date, a retry's backoff or the app's share of
    /// connections holds it (``TransferWait`` says which).
    case waiting
    /// Bytes are moving.
    case running
    /// Finished with a response (any status: a 404 completes, as on iOS).
    case completed
    /// Ended without a usable response: its error says why.
    case failed
    /// Cancelled by the app, or by a force quit.
    case cancelled

    /// Whether the transfer is over and only waits for the app to hear of it.
    public var isFinished: Bool {
        switch self {
        case .waiting, .running: false
        case .completed, .failed, .cancelled: true
        }
    }
}

/// Why a transfer that is not running waits, for the app's logs and `bgctl transfers`.
public enum TransferWait: String, Sendable, Hashable, Codable, CaseIterable {
    /// No network (no default route).
    case network
    /// Discretionary: waits for external power (and a network).
    case externalPower
    /// Its `earliestBeginDate` has not come.
    case earliestBeginDate
    /// Backing off after a transient failure.
    case retry
    /// The app already has as many transfers running as the policy allows.
    case concurrency
}
