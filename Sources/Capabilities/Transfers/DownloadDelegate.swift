package import AsyncHTTPClient
import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Foundation
package import NIOCore
package import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// One download attempt's response, taken on the HTTP client's own event loop: the head is
/// judged by ``ResumePlan`` and each body part is written to the partial file as it arrives.
///
/// Why a delegate and not the async body sequence: that sequence hands one buffer at a time
/// and reads the next only when asked (a watermark of one), so the socket and the disk took
/// turns, and a loopback download ran at about 0.6x curl's speed. Here reading and writing
/// go on together on one thread. The writes go to the page cache and take microseconds; the
/// transfer client has an event loop of its own, so nothing else waits behind them.
///
/// Every method runs on that one event loop, which is what makes the mutable state safe.
package final class DownloadDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    package typealias Response = Void

    private let id: Int
    /// The app the download is for: its partial file may be in its data volume.
    private let app: BundleID
    private let files: TransferFiles
    private let partial: ResumePlan.Partial
    /// The most the partial file may hold: what the policy leaves the app's transfers on disk.
    /// Checked against what arrives, not only what was announced: a server that sends no
    /// length, or more than it said, is stopped here.
    private let byteLimit: Int64
    private let requestURL: String
    private let started: @Sendable (TransferResponseStart) -> Void
    private let progress: @Sendable (TransferProgress) -> Void

    private var finalURL: String?
    private var descriptor: Int32 = -1
    /// The partial file's path, for messages, once it is open.
    private var path = ""
    private var written: Int64 = 0
    private var expected: Int64 = -1
    private var lastReport = ContinuousClock.now
    /// The head, once it came.
    package private(set) var head: TransferResponse?
    /// Set when the head or a write decided the attempt's end before the body did.
    package private(set) var decided: TransferAttemptOutcome?

    package init(
        id: Int, app: BundleID, files: TransferFiles, partial: ResumePlan.Partial, byteLimit: Int64, url: String,
        started: @escaping @Sendable (TransferResponseStart) -> Void,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) {
        self.id = id
        self.app = app
        self.files = files
        self.partial = partial
        self.byteLimit = byteLimit
        self.requestURL = url
        self.started = started
        self.progress = progress
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    package func didVisitURL(task: HTTPClient.Task<Void>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        finalURL = request.url.absoluteString
    }

    package func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let response = TransferResponse(
            status: Int(head.status.code), headers: head.headers, url: finalURL ?? requestURL)
        self.head = response
        if let transient = HTTPTransferClient.transientStatus(response) {
            decided = transient
            return task.eventLoop.makeSucceededVoidFuture()
        }
        var offset: Int64 = 0
        var discarded: Int64 = 0
        expected = response.headers["content-length"].flatMap { Int64($0) } ?? -1
        switch ResumePlan.decide(partial: partial, status: response.status, headers: response.headers) {
        case .append(let at, let total):
            offset = at
            expected = total ?? (at == 0 ? expected : -1)
        case .restart(let thrownAway):
            discarded = thrownAway
        case .restartWithoutRange(let thrownAway):
            files.removePartial(id, of: app)
            started(TransferResponseStart(validator: nil, discarded: thrownAway, expected: -1))
            decided = .startAgain(
                "the server would not resume at byte \(partial.bytes) (\(response.status)); starting again")
            return task.eventLoop.makeSucceededVoidFuture()
        case .alreadyComplete(let total):
            var whole = response
            whole.status = 200
            whole.headers["content-length"] = String(total)
            decided = .finished(whole)
            return task.eventLoop.makeSucceededVoidFuture()
        case .notAResume:
            // A status the app hears: its body is the download; what was held is gone.
            break
        case .fail(let reason):
            decided = .failed(.badResponse(reason))
            return task.eventLoop.makeSucceededVoidFuture()
        }
        if expected > byteLimit {
            refuseOverLimit()
            return task.eventLoop.makeSucceededVoidFuture()
        }
        let validator =
            response.headers["etag"].flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? response.headers["last-modified"]
        started(TransferResponseStart(validator: validator, discarded: discarded, expected: expected))
        do {
            (descriptor, path) = try files.openPartial(id, of: app, at: offset)
            written = offset
        } catch {
            decided = .failed(.file(.create, path: error.path, errno: error.code))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    package func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        guard decided == nil, descriptor >= 0 else { return task.eventLoop.makeSucceededVoidFuture() }
        guard written + Int64(buffer.readableBytes) <= byteLimit else {
            refuseOverLimit()
            task.cancel()
            return task.eventLoop.makeSucceededVoidFuture()
        }
        do {
            try Self.write(buffer, to: descriptor, at: written, path: path)
            written += Int64(buffer.readableBytes)
        } catch {
            files.removePartial(id, of: app)
            decided = .failed(.file(.write, path: error.path, errno: error.code))
            task.cancel()
            return task.eventLoop.makeSucceededVoidFuture()
        }
        if ContinuousClock.now - lastReport >= .milliseconds(250) {
            lastReport = .now
            progress(TransferProgress(bytes: written, expected: expected))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    /// Ends the attempt past the disk cap: nothing of it stays on disk.
    private func refuseOverLimit() {
        files.removePartial(id, of: app)
        decided = .failed(.exceedsDiskLimit(limit: byteLimit))
    }

    package func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {}

    package func didFinishRequest(task: HTTPClient.Task<Void>) throws {}

    /// What the attempt came to once the request ended, with or without an error.
    package func outcome(error: (any Error)?) -> TransferAttemptOutcome {
        if let decided { return decided }
        progress(TransferProgress(bytes: written, expected: expected))
        if let error { return HTTPTransferClient.outcome(of: error) }
        guard let head else { return .failed(.badResponse("no response")) }
        switch ResumePlan.verify(bytesOnDisk: written, expectedTotal: expected >= 0 ? expected : nil) {
        case .complete: return .finished(head)
        case .short: return .failed(.bodyShort(received: written, expected: expected))
        case .long(let extra):
            files.removePartial(id, of: app)
            return .failed(.badResponse("the body is \(extra) bytes longer than the server announced"))
        }
    }

    private static func write(_ buffer: ByteBuffer, to descriptor: Int32, at offset: Int64, path: String)
        throws(TransferFileError)
    {
        var failure: TransferFileError?
        buffer.withUnsafeReadableBytes { raw in
            var done = 0
            while done < raw.count {
                let count = pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = TransferFileError(path: path, "cannot write", errno)
                    return
                }
                done += count
            }
        }
        if let failure { throw failure }
    }
}
