import BackgrounderCore
import BackgrounderProtocol
import Foundation

@testable import BackgroundKit

/// A daemon for sessions without one: numbers created transfers from 41, answers
/// `TRANSFER_SESSION` with a list the test sets, refuses creates when told, and records
/// every request in order.
final class FakeTransferDaemon: TransferChannel {
    private struct State {
        var requests: [ClientMessage.Body] = []
        var nextID = 41
        var list: [TransferInfo] = []
        var refusal: ProtocolError?
    }

    private let state = Locked(State())

    /// What `TRANSFER_SESSION` answers.
    func setList(_ list: [TransferInfo]) { state.withLock { $0.list = list } }
    /// Makes `TRANSFER_CREATE` fail with this error.
    func refuseCreates(_ error: ProtocolError) { state.withLock { $0.refusal = error } }
    /// Every request so far.
    var requests: [ClientMessage.Body] { state.withLock { $0.requests } }
    /// The transfers acknowledged so far, in order.
    var acknowledged: [Int] {
        requests.compactMap { if case .acknowledgeTransfer(let reference) = $0 { reference.transfer } else { nil } }
    }
    /// The submissions created so far.
    var created: [TransferSubmission] {
        requests.compactMap { if case .createTransfer(let submission) = $0 { submission } else { nil } }
    }

    func request(_ body: ClientMessage.Body) throws -> DaemonMessage {
        state.withLock { state in
            state.requests.append(body)
            switch body {
            case .createTransfer(let submission):
                if let refusal = state.refusal { return DaemonMessage(.error(refusal)) }
                defer { state.nextID += 1 }
                return DaemonMessage(
                    .transfer(
                        TransferInfo(id: state.nextID, bundle: "t", request: submission, state: .waiting, created: 0)))
            case .transferSession:
                return DaemonMessage(.transferList(TransferList(transfers: state.list)))
            default:
                return DaemonMessage(.done(Done(detail: "ok")))
            }
        }
    }

    /// A transfer of session `session` as the daemon would describe it.
    static func info(
        _ id: Int, session: String = "s", kind: TransferKind = .download, state: TransferState,
        received: Int64 = 0, expected: Int64 = -1, status: Int? = nil, error: TransferError? = nil,
        location: String? = nil
    ) -> TransferInfo {
        TransferInfo(
            id: id, bundle: "t",
            request: TransferSubmission(session: session, kind: kind, url: "http://example.org/\(id)"),
            state: state, bytesReceived: received, bytesExpectedToReceive: expected, created: 0,
            response: status.map { TransferResponse(status: $0, headers: [:], url: "http://example.org/\(id)") },
            error: error, location: location)
    }
}

/// A download delegate that writes down what it hears, one line per call.
@MainActor
final class RecordingDelegate: URLSessionDownloadDelegate {
    var events: [String] = []

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        events.append("file \(downloadTask.taskIdentifier) \(location.path)")
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        events.append(
            "wrote \(downloadTask.taskIdentifier) \(bytesWritten) \(totalBytesWritten)/\(totalBytesExpectedToWrite)")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode
        let code = (error as? URLError).map { "\($0.code.rawValue)" }
        events.append("complete \(task.taskIdentifier) status \(status.map(String.init) ?? "-") error \(code ?? "-")")
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        events.append("sent \(task.taskIdentifier) \(bytesSent) \(totalBytesSent)/\(totalBytesExpectedToSend)")
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        events.append("finished events \(session.configuration.identifier ?? "")")
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        events.append("invalid")
    }
}
