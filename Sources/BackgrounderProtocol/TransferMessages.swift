public import BackgrounderCore

/// `TRANSFER_CREATE`: an app hands a download or an upload to the system, in one of its
/// background sessions (`URLSessionConfiguration.background(withIdentifier:)`). The reply is
/// `TRANSFER` with the transfer's identifier.
public struct TransferSubmission: Sendable, Hashable, Codable {
    /// The background session's identifier.
    public var session: String
    /// Download or upload.
    public var kind: TransferKind
    /// An `http` or `https` URL.
    public var url: String
    /// The request method; `GET` for a download and `POST` for an upload when absent.
    public var method: String?
    /// Request headers.
    public var headers: [String: String]?
    /// Upload only: the file whose contents are the body, inside the app's data directory.
    public var file: String?
    /// Wait for external power and a network, as `isDiscretionary`. A transfer created while
    /// the app is in the background is discretionary whatever this says.
    public var discretionary: Bool?
    /// Not before this moment, in seconds since 1970.
    public var earliestBeginDate: Double?
    /// `countOfBytesClientExpectsToReceive`: a hint the limits check against.
    public var expectedBytesToReceive: Int64?
    /// `countOfBytesClientExpectsToSend`.
    public var expectedBytesToSend: Int64?
    /// `taskDescription`: the app's own label.
    public var taskDescription: String?
    /// `sessionSendsLaunchEvents`: launch or wake the app when the session's transfers are
    /// done; absent means true.
    public var sendsLaunchEvents: Bool?

    /// Creates a submission.
    public init(
        session: String, kind: TransferKind, url: String, method: String? = nil, headers: [String: String]? = nil,
        file: String? = nil, discretionary: Bool? = nil, earliestBeginDate: Double? = nil,
        expectedBytesToReceive: Int64? = nil, expectedBytesToSend: Int64? = nil, taskDescription: String? = nil,
        sendsLaunchEvents: Bool? = nil
    ) {
        self.sendsLaunchEvents = sendsLaunchEvents
        self.session = session
        self.kind = kind
        self.url = url
        self.method = method
        self.headers = headers
        self.file = file
        self.discretionary = discretionary
        self.earliestBeginDate = earliestBeginDate
        self.expectedBytesToReceive = expectedBytesToReceive
        self.expectedBytesToSend = expectedBytesToSend
        self.taskDescription = taskDescription
    }
}

/// The response a transfer ended with: its status and headers (names in lower case).
public struct TransferResponse: Sendable, Hashable, Codable {
    /// The HTTP status.
    public var status: Int
    /// The headers, names lower-cased; repeated headers joined with `, `.
    public var headers: [String: String]
    /// The URL that answered, after redirects.
    public var url: String

    /// Creates a response.
    public init(status: Int, headers: [String: String], url: String) {
        self.status = status
        self.headers = headers
        self.url = url
    }
}

/// One transfer as the daemon keeps it: `TRANSFER`, an element of `TRANSFER_LIST`, and the
/// `TRANSFER_UPDATE` notice an app hears as it moves.
public struct TransferInfo: Sendable, Hashable, Codable {
    /// The identifier, unique among all transfers the daemon ever kept (`taskIdentifier`);
    /// `transfer` on the wire, where `id` is the message's.
    public var id: Int
    /// The app's bundle identifier.
    public var bundle: BundleID
    /// What the app asked for.
    public var request: TransferSubmission
    /// Where it is.
    public var state: TransferState
    /// Why it waits, while ``state`` is `waiting`.
    public var waitingFor: TransferWait?
    /// When a waiting retry goes, in seconds since 1970.
    public var retryAt: Double?
    /// Body bytes on disk (download) or sent (upload).
    public var bytesReceived: Int64
    /// The body's length when the server said, else -1.
    public var bytesExpectedToReceive: Int64
    /// Body bytes sent.
    public var bytesSent: Int64
    /// The upload's length, else 0.
    public var bytesExpectedToSend: Int64
    /// Bytes fetched again because a resume was impossible (the validator changed, or the
    /// server ignores ranges).
    public var bytesRefetched: Int64
    /// Attempts made after the first.
    public var retries: Int
    /// The last transient failure, while retrying.
    public var lastError: String?
    /// Bytes per second over the last few seconds, while running.
    public var rate: Double?
    /// When it was created, in seconds since 1970.
    public var created: Double
    /// The response it completed with.
    public var response: TransferResponse?
    /// Why it failed or was cancelled.
    public var error: TransferError?
    /// A completed download: the file in the app's data directory, which the app moves
    /// before acknowledging; it is removed after.
    public var location: String?

    /// Creates a transfer's description.
    public init(
        id: Int, bundle: BundleID, request: TransferSubmission, state: TransferState, waitingFor: TransferWait? = nil,
        retryAt: Double? = nil, bytesReceived: Int64 = 0, bytesExpectedToReceive: Int64 = -1, bytesSent: Int64 = 0,
        bytesExpectedToSend: Int64 = 0, bytesRefetched: Int64 = 0, retries: Int = 0, lastError: String? = nil,
        rate: Double? = nil, created: Double, response: TransferResponse? = nil, error: TransferError? = nil,
        location: String? = nil
    ) {
        self.id = id
        self.bundle = bundle
        self.request = request
        self.state = state
        self.waitingFor = waitingFor
        self.retryAt = retryAt
        self.bytesReceived = bytesReceived
        self.bytesExpectedToReceive = bytesExpectedToReceive
        self.bytesSent = bytesSent
        self.bytesExpectedToSend = bytesExpectedToSend
        self.bytesRefetched = bytesRefetched
        self.retries = retries
        self.lastError = lastError
        self.rate = rate
        self.created = created
        self.response = response
        self.error = error
        self.location = location
    }

    private enum CodingKeys: String, CodingKey {
        case id = "transfer"
        case bundle, request, state, waitingFor, retryAt, bytesReceived, bytesExpectedToReceive, bytesSent
        case bytesExpectedToSend, bytesRefetched, retries, lastError, rate, created, response, error, location
    }
}

/// `TRANSFER_CANCEL` and `TRANSFER_ACK`: one of the app's own transfers.
public struct TransferReference: Sendable, Hashable, Codable {
    /// The transfer's identifier.
    public var transfer: Int

    /// Creates a reference.
    public init(transfer: Int) {
        self.transfer = transfer
    }
}

/// `TRANSFER_SESSION`: an app (re)creates a background session. The reply is the session's
/// transfers, finished ones included until acknowledged; from then on this process hears
/// `TRANSFER_UPDATE` for them.
public struct TransferSessionRequest: Sendable, Hashable, Codable {
    /// The session's identifier.
    public var session: String

    /// Creates a request.
    public init(session: String) {
        self.session = session
    }
}

/// `TRANSFERS`: a person asks for every transfer, one app's, or one.
public struct TransferQuery: Sendable, Hashable, Codable {
    /// One app, or absent for all.
    public var bundle: BundleID?
    /// One transfer, or absent for all.
    public var transfer: Int?

    /// Creates a query.
    public init(bundle: BundleID? = nil, transfer: Int? = nil) {
        self.bundle = bundle
        self.transfer = transfer
    }
}

/// `TRANSFER_LIST`: transfers, oldest first.
public struct TransferList: Sendable, Hashable, Codable {
    /// The transfers.
    public var transfers: [TransferInfo]

    /// Creates a list.
    public init(transfers: [TransferInfo]) {
        self.transfers = transfers
    }
}
