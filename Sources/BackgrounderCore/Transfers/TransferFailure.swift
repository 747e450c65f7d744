public import Foundation

/// What happened to one attempt at a transfer, as the daemon saw it; ``outcome(url:retry:backoff:now:using:)``
/// decides whether the transfer completes, retries later or fails.
///
/// The rules follow a background `URLSession`: a transient network failure is retried
/// (the download resumes where it stopped), a permanent one fails with an error naming the
/// URL, and any HTTP response that is not a server's "come back later" completes the
/// transfer with its status, a 404 included: the app reads the status, as on iOS.
public enum TransferFailure: Sendable, Hashable {
    /// The host refused the connection (`ECONNREFUSED`).
    case connectionRefused
    /// The connection was reset (`ECONNRESET`, `EPIPE`).
    case connectionReset
    /// The server closed the connection before the response was complete.
    case closedEarly
    /// No progress for the request's timeout.
    case timedOut
    /// The TLS handshake failed or the certificate was refused; the detail says why.
    case tlsFailure(String)
    /// The host name did not resolve: `temporary` for a resolver that could not answer
    /// (`EAI_AGAIN`), which may answer later; otherwise the name does not exist.
    case dnsFailure(temporary: Bool)
    /// The server answered: the status and the headers (names in lower case).
    case response(status: Int, headers: [String: String])
    /// The body ended before the `Content-Length` the server announced.
    case bodyShort(received: Int64, expected: Int64)
    /// The response made no sense (a malformed `Content-Range`, a resume that does not
    /// line up); the detail says what.
    case badResponse(String)
    /// More redirects than the client follows.
    case tooManyRedirects(Int)
    /// A redirect or the request itself named a scheme other than `http` and `https`.
    case unsupportedScheme(String)
    /// A file operation on the daemon's side failed, with its `errno`.
    case file(FileOperation, path: String, errno: Int32)
    /// The body (announced or as it arrived) outgrew what the policy lets the app's transfers
    /// hold on disk: `limit` is the room this download had.
    case exceedsDiskLimit(limit: Int64)

    /// Which file operation failed.
    public enum FileOperation: String, Sendable, Hashable, Codable, CaseIterable {
        /// Creating the download's file.
        case create
        /// Writing the download's body.
        case write
        /// Opening an upload's file.
        case open
        /// Reading an upload's file.
        case read
    }

    /// HTTP statuses a background session retries whatever they say: the server or a proxy
    /// in front of it is failing now, not refusing the request.
    public static let retriedStatuses: Set<Int> = [500, 502, 504]
    /// Statuses retried only when the server said when (`Retry-After`): without it, the app
    /// gets the status and decides.
    public static let retriedWithRetryAfter: Set<Int> = [429, 503]

    /// Whether a response is retried rather than heard by the app: a failing server or
    /// gateway always; 429 and 503 when they say when (`Retry-After`).
    public static func isRetried(status: Int, headers: [String: String], now: Date) -> Bool {
        retriedStatuses.contains(status)
            || (retriedWithRetryAfter.contains(status)
                && headers["retry-after"].flatMap { RetryAfter.delay($0, now: now) } != nil)
    }

    /// What to do about this attempt.
    ///
    /// - Parameters:
    ///   - url: The transfer's URL, named in error messages.
    ///   - retry: The retry this would be (1 for the first retry), for the backoff.
    ///   - backoff: The delay schedule.
    ///   - now: For a `Retry-After` given as a date.
    public func outcome(
        url: String, retry: Int, backoff: TransferBackoff, now: Date, using generator: inout some RandomNumberGenerator
    ) -> TransferOutcome {
        func again(_ reason: String, retryAfter: Duration? = nil) -> TransferOutcome {
            .retry(after: backoff.delay(retry: retry, retryAfter: retryAfter, using: &generator), reason: reason)
        }
        switch self {
        case .connectionRefused: return again("connection refused")
        case .connectionReset: return again("connection reset")
        case .closedEarly: return again("connection closed early")
        case .timedOut: return again("timed out")
        case .bodyShort(let received, let expected):
            return again("body ended after \(received) of \(expected) bytes")
        case .dnsFailure(temporary: true): return again("the name server did not answer")
        case .dnsFailure(temporary: false):
            return .fail(TransferError(.cannotFindHost, "\(url): the host name does not resolve"))
        case .tlsFailure(let detail):
            return .fail(TransferError(.secureConnectionFailed, "\(url): TLS failed: \(detail)"))
        case .badResponse(let detail):
            return .fail(TransferError(.badServerResponse, "\(url): \(detail)"))
        case .tooManyRedirects(let count):
            return .fail(TransferError(.httpTooManyRedirects, "\(url): more than \(count) redirects"))
        case .unsupportedScheme(let scheme):
            return .fail(
                TransferError(.unsupportedURL, "\(url): the scheme \"\(scheme)\" is not http or https"))
        case .file(let operation, let path, let errno):
            return .fail(Self.fileError(operation, path: path, errno: errno, url: url))
        case .exceedsDiskLimit(let limit):
            return .fail(
                TransferError(
                    .dataLengthExceedsMaximum,
                    "\(url): the body is larger than the \(ByteCountText.string(limit)) the policy leaves this app's transfers on disk"
                ))
        case .response(let status, let headers):
            if Self.isRetried(status: status, headers: headers, now: now) {
                let retryAfter = headers["retry-after"].flatMap { RetryAfter.delay($0, now: now) }
                let said = Self.retriedStatuses.contains(status) ? "" : " with Retry-After"
                return again("HTTP \(status)\(said)", retryAfter: retryAfter)
            }
            return .complete
        }
    }

    private static func fileError(_ operation: FileOperation, path: String, errno: Int32, url: String)
        -> TransferError
    {
        let why = String(cString: strerror(errno))
        switch operation {
        case .create:
            return TransferError(.cannotCreateFile, "\(url): cannot create \(path): \(why)")
        case .write:
            // A full disk (ENOSPC, EDQUOT) fails the transfer too: retrying into it would only
            // churn, and the app may submit again once it has made room.
            return TransferError(.cannotWriteToFile, "\(url): cannot write \(path): \(why)")
        case .open, .read:
            let code: TransferError.Code =
                errno == EACCES || errno == EPERM ? .noPermissionsToReadFile : .cannotOpenFile
            return TransferError(code, "\(url): cannot \(operation.rawValue) \(path): \(why)")
        }
    }
}

/// What becomes of a transfer after an attempt.
public enum TransferOutcome: Sendable, Hashable {
    /// Finished with the response it got (any status).
    case complete
    /// A transient failure: try again after the delay; the reason is the transfer's last error.
    case retry(after: Duration, reason: String)
    /// A permanent failure.
    case fail(TransferError)
}
