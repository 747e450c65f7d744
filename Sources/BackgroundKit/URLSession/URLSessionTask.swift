import BackgrounderCore
import BackgrounderProtocol
public import Foundation

/// One transfer in a background session, as `URLSessionTask`. The daemon does the work: the
/// task is created by ``resume()`` and goes on while the app is suspended or not running.
@MainActor
public class URLSessionTask {
    /// Where a task is, as `URLSessionTask.State`.
    public enum State: Int, Sendable {
        /// Handed to the system (which may still hold it for a condition or a date).
        case running = 0
        /// Created and not resumed yet.
        case suspended = 1
        /// ``cancel()`` was called; the final update is on its way.
        case canceling = 2
        /// Finished, and the delegate heard of it.
        case completed = 3
    }

    /// The system's identifier for the transfer, assigned at the first ``resume()`` (0 before):
    /// the daemon numbers transfers so that a relaunched app recognises its own.
    public internal(set) var taskIdentifier = 0
    /// Where the task is.
    public internal(set) var state: State = .suspended
    /// The app's own label, kept with the transfer across relaunches.
    public var taskDescription: String?
    /// Not before this moment; set it before ``resume()``.
    public var earliestBeginDate: Date?
    /// A hint of the response's size, which the system's limits check; set before ``resume()``.
    public var countOfBytesClientExpectsToReceive: Int64 = -1
    /// A hint of the request's size; set before ``resume()``.
    public var countOfBytesClientExpectsToSend: Int64 = -1
    /// Body bytes received so far.
    public internal(set) var countOfBytesReceived: Int64 = 0
    /// The body's length when the server said, else -1.
    public internal(set) var countOfBytesExpectedToReceive: Int64 = -1
    /// Body bytes sent so far.
    public internal(set) var countOfBytesSent: Int64 = 0
    /// The upload's length, else 0.
    public internal(set) var countOfBytesExpectedToSend: Int64 = 0
    /// The request as created.
    public let originalRequest: URLRequest?
    /// The response, once the task completed with one (any status).
    public internal(set) var response: URLResponse?
    /// Why the task failed or was cancelled, once it completed: Foundation's `URLError`, its
    /// code the daemon's (`.cancelled`, `.timedOut`, …) and its description the daemon's sentence.
    public internal(set) var error: (any Error)?

    /// The session, which outlives its tasks' delivery.
    weak var session: URLSession?
    /// The file an upload sends.
    let uploadFile: URL?
    /// What the transfer moves.
    var kind: TransferKind { .download }

    init(request: URLRequest, session: URLSession, uploadFile: URL? = nil) {
        originalRequest = request
        self.session = session
        self.uploadFile = uploadFile
    }

    /// Hands the task to the system (`TRANSFER_CREATE`) the first time; later calls do
    /// nothing. A refusal completes the task with the daemon's reason.
    public func resume() {
        guard state == .suspended else { return }
        state = .running
        session?.create(self)
    }

    /// Cancels the task: the delegate hears `didCompleteWithError` with `URLError.Code.cancelled`.
    public func cancel() {
        switch state {
        case .suspended:
            // Never handed to the system: it ends here.
            state = .canceling
            session?.finishLocally(self, error: .cancelled, "cancelled before it was resumed")
        case .running:
            state = .canceling
            session?.cancelTransfer(self)
        case .canceling, .completed:
            break
        }
    }

    /// What the daemon submits for this task.
    func submission(session identifier: String, discretionary: Bool) -> TransferSubmission {
        TransferSubmission(
            session: identifier, kind: kind, url: originalRequest?.url?.absoluteString ?? "",
            method: originalRequest?.httpMethod, headers: originalRequest?.allHTTPHeaderFields,
            file: uploadFile?.path, discretionary: discretionary ? true : nil,
            earliestBeginDate: earliestBeginDate?.timeIntervalSince1970,
            expectedBytesToReceive: countOfBytesClientExpectsToReceive >= 0 ? countOfBytesClientExpectsToReceive : nil,
            expectedBytesToSend: countOfBytesClientExpectsToSend >= 0 ? countOfBytesClientExpectsToSend : nil,
            taskDescription: taskDescription)
    }

    /// Takes the daemon's counters.
    func update(from info: TransferInfo) {
        countOfBytesReceived = info.bytesReceived
        countOfBytesExpectedToReceive = info.bytesExpectedToReceive
        countOfBytesSent = info.bytesSent
        countOfBytesExpectedToSend = info.bytesExpectedToSend
    }
}

/// A download, as `URLSessionDownloadTask`: the body goes to a file the delegate is handed.
@MainActor
public final class URLSessionDownloadTask: URLSessionTask {}

/// An upload of a file's contents, as `URLSessionUploadTask`.
@MainActor
public final class URLSessionUploadTask: URLSessionTask {
    override var kind: TransferKind { .upload }
}
