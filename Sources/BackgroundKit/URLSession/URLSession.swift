import BackgrounderCore
import BackgrounderProtocol
public import Foundation

/// A background session, as `URLSession` with a background configuration: the daemon makes
/// its transfers, which go on while the app is suspended or not running, and tells the
/// delegate how they end on the main actor.
///
/// A relaunched app recreates the session with the same identifier (usually in
/// `handleEventsForBackgroundURLSession`) to hear about the transfers that finished meanwhile:
/// the delegate hears each one once, then `urlSessionDidFinishEvents` after a background event.
///
/// On Linux Foundation's `URLSession` lives in FoundationNetworking, which BackgroundKit does
/// not import; a file that imports both writes `BackgroundKit.URLSession` (and the task,
/// configuration, request and delegate types likewise).
@MainActor
public final class URLSession: CustomStringConvertible {
    /// The configuration, as created.
    public let configuration: URLSessionConfiguration
    /// The delegate: kept until the session is invalidated, as on iOS.
    public private(set) var delegate: (any URLSessionDelegate)?
    /// The app's own label.
    public var sessionDescription: String?

    /// The background session's identifier.
    let identifier: String
    /// Tasks the delegate has not heard the end of: created, resumed, or adopted from the
    /// daemon's list after a relaunch.
    private var tasks: [URLSessionTask] = []
    private var invalidated = false
    private let channel: (any TransferChannel)?
    /// The last scheduled delivery; each waits for the one before, so the delegate hears
    /// events in the order the daemon sent them. Tests wait for it.
    private(set) var delivery: Task<Void, Never>?

    /// Creates a background session, as `URLSession(configuration:delegate:delegateQueue:)`,
    /// and attaches it (`TRANSFER_SESSION`): transfers of the same identifier that finished
    /// while the app was away are delivered to the delegate soon after.
    /// - Parameters:
    ///   - configuration: A background configuration (``URLSessionConfiguration/background(withIdentifier:)``).
    ///   - delegate: Hears about the tasks; usually a ``URLSessionDownloadDelegate``.
    ///   - queue: Ignored: delegates are called on the main actor.
    public convenience init(
        configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?,
        delegateQueue queue: OperationQueue?
    ) {
        self.init(configuration: configuration, delegate: delegate, channel: URLSessionRegistry.shared.channel)
    }

    /// Creates a session that talks to `channel` (a test's fake daemon).
    init(configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?, channel: (any TransferChannel)?) {
        self.configuration = configuration
        self.delegate = delegate
        self.identifier = configuration.identifier ?? ""
        self.channel = channel
        URLSessionRegistry.shared.register(self)
        attach()
    }

    // MARK: Tasks

    /// A download of a URL (`GET`); call ``URLSessionTask/resume()`` to start it.
    public func downloadTask(with url: URL) -> URLSessionDownloadTask {
        downloadTask(with: URLRequest(url: url))
    }

    /// A download with the request's method and headers.
    public func downloadTask(with request: URLRequest) -> URLSessionDownloadTask {
        let task = URLSessionDownloadTask(request: request, session: self)
        tasks.append(task)
        return task
    }

    /// An upload of a file's contents (`POST` unless the request says), as
    /// `uploadTask(with:fromFile:)`. The file must be in the app's data directory, where the
    /// daemon can read it; keep it there until the task completes.
    public func uploadTask(with request: URLRequest, fromFile fileURL: URL) -> URLSessionUploadTask {
        let task = URLSessionUploadTask(request: request, session: self, uploadFile: fileURL)
        tasks.append(task)
        return task
    }

    /// The tasks not completed yet, handed to `completionHandler` on the main actor.
    public func getAllTasks(completionHandler: @escaping @MainActor ([URLSessionTask]) -> Void) {
        let current = tasks
        Task { completionHandler(current) }
    }

    /// Cancels every task and invalidates the session: the delegate hears each cancellation,
    /// then `didBecomeInvalidWithError` with `nil`.
    public func invalidateAndCancel() {
        guard !invalidated else { return }
        for task in tasks { task.cancel() }
        invalidated = true
        endIfInvalidatedAndIdle()
    }

    /// Invalidates the session once its tasks are finished; no new task can start.
    public func finishTasksAndInvalidate() {
        guard !invalidated else { return }
        invalidated = true
        endIfInvalidatedAndIdle()
    }

    public nonisolated var description: String { "background session \(identifier)" }

    // MARK: The daemon's side

    /// Asks the daemon for the session's transfers (`TRANSFER_SESSION`) and delivers them;
    /// from then on its `TRANSFER_UPDATE` notices reach ``receive(_:)``.
    func attach() {
        guard let channel else { return }
        // A list fetched after the event was announced holds every transfer it is for.
        let answersEvent = URLSessionRegistry.shared.isEventPending(for: identifier)
        do {
            let reply = try channel.request(.transferSession(TransferSessionRequest(session: identifier)))
            switch reply.body {
            case .transferList(let list):
                schedule {
                    for info in list.transfers { $0.receive(info) }
                    if answersEvent, URLSessionRegistry.shared.consumeEvent(for: $0.identifier) {
                        $0.delegate?.urlSessionDidFinishEvents(forBackgroundURLSession: $0)
                    }
                }
            case .error(let error):
                warn("TRANSFER_SESSION \(identifier) refused: \(error.message)")
            default:
                warn("unexpected \(reply.className) to TRANSFER_SESSION")
            }
        } catch {
            warn("TRANSFER_SESSION \(identifier): \(error)")
        }
    }

    /// Hands a task to the daemon (`TRANSFER_CREATE`).
    func create(_ task: URLSessionTask) {
        guard !invalidated else {
            return finishLocally(task, error: .unknown, "the session \(identifier) was invalidated")
        }
        guard let channel else {
            return finishLocally(task, error: .unknown, "the app was not launched by backgrounderd (`bgctl open ID`)")
        }
        let submission = task.submission(session: identifier, discretionary: configuration.isDiscretionary)
        let reply: DaemonMessage
        do {
            reply = try channel.request(.createTransfer(submission))
        } catch {
            return finishLocally(task, error: .unknown, "TRANSFER_CREATE: \(error)")
        }
        switch reply.body {
        case .transfer(let info):
            task.taskIdentifier = info.id
            task.update(from: info)
        case .error(let error):
            warn("TRANSFER_CREATE \(submission.url) refused: \(error.message)")
            finishLocally(task, error: .unknown, "refused by backgrounderd: \(error.message)")
        default:
            finishLocally(task, error: .unknown, "unexpected \(reply.className) to TRANSFER_CREATE")
        }
    }

    /// Asks the daemon to cancel a task (`TRANSFER_CANCEL`); its final update says cancelled.
    func cancelTransfer(_ task: URLSessionTask) {
        _ = try? channel?.request(.cancelTransfer(TransferReference(transfer: task.taskIdentifier)))
    }

    /// Ends a task the daemon never had: the delegate hears `didCompleteWithError` soon after.
    func finishLocally(_ task: URLSessionTask, error code: TransferError.Code, _ message: String) {
        let error = URLError(transfer: TransferError(code, message), url: task.originalRequest?.url?.absoluteString)
        task.state = .completed
        task.error = error
        schedule { session in
            session.tasks.removeAll { $0 === task }
            (session.delegate as? any URLSessionTaskDelegate)?.urlSession(
                session, task: task, didCompleteWithError: error)
            session.endIfInvalidatedAndIdle()
        }
    }

    /// One transfer as the daemon reported it: progress, or its end, which the delegate hears
    /// once per process and the daemon is then told of (`TRANSFER_ACK`).
    func receive(_ info: TransferInfo) {
        let registry = URLSessionRegistry.shared
        guard info.request.session == identifier, !registry.wasDelivered(info.id) else { return }
        let task = tasks.first { $0.taskIdentifier == info.id } ?? adopt(info)
        if info.state.isFinished {
            registry.markDelivered(info.id)
            finish(task, info)
        } else {
            progress(task, info)
        }
    }

    /// A task object for a transfer this process did not create (it was relaunched).
    private func adopt(_ info: TransferInfo) -> URLSessionTask {
        var request = URLRequest(url: URL(string: info.request.url) ?? URL(fileURLWithPath: "/"))
        request.httpMethod = info.request.method
        request.allHTTPHeaderFields = info.request.headers
        let task: URLSessionTask =
            info.request.kind == .upload
            ? URLSessionUploadTask(
                request: request, session: self, uploadFile: info.request.file.map { URL(fileURLWithPath: $0) })
            : URLSessionDownloadTask(request: request, session: self)
        task.taskIdentifier = info.id
        task.state = .running
        task.taskDescription = info.request.taskDescription
        task.earliestBeginDate = info.request.earliestBeginDate.map { Date(timeIntervalSince1970: $0) }
        task.countOfBytesClientExpectsToReceive = info.request.expectedBytesToReceive ?? -1
        task.countOfBytesClientExpectsToSend = info.request.expectedBytesToSend ?? -1
        tasks.append(task)
        return task
    }

    private func progress(_ task: URLSessionTask, _ info: TransferInfo) {
        let received = info.bytesReceived - task.countOfBytesReceived
        let sent = info.bytesSent - task.countOfBytesSent
        // Only forward: a list fetched before a later update may arrive after it.
        guard received >= 0, sent >= 0 else { return }
        task.update(from: info)
        if let download = task as? URLSessionDownloadTask, received > 0 {
            (delegate as? any URLSessionDownloadDelegate)?.urlSession(
                self, downloadTask: download, didWriteData: received, totalBytesWritten: info.bytesReceived,
                totalBytesExpectedToWrite: info.bytesExpectedToReceive)
        }
        if sent > 0 {
            (delegate as? any URLSessionTaskDelegate)?.urlSession(
                self, task: task, didSendBodyData: sent, totalBytesSent: info.bytesSent,
                totalBytesExpectedToSend: info.bytesExpectedToSend)
        }
    }

    /// The file first (the app moves it during the call), then the completion, then the
    /// acknowledgement, after which the daemon deletes what is left of the file.
    private func finish(_ task: URLSessionTask, _ info: TransferInfo) {
        progress(task, info)
        task.response = info.response.map(HTTPURLResponse.init)
        if info.state == .completed {
            task.error = nil
        } else {
            let reason =
                info.error
                ?? TransferError(
                    info.state == .cancelled ? .cancelled : .unknown, "transfer \(info.id) \(info.state.rawValue)")
            task.error = URLError(transfer: reason, url: info.request.url)
        }
        task.state = .completed
        tasks.removeAll { $0 === task }
        if info.state == .completed, let location = info.location, let download = task as? URLSessionDownloadTask {
            (delegate as? any URLSessionDownloadDelegate)?.urlSession(
                self, downloadTask: download, didFinishDownloadingTo: URL(fileURLWithPath: location))
        }
        (delegate as? any URLSessionTaskDelegate)?.urlSession(self, task: task, didCompleteWithError: task.error)
        _ = try? channel?.request(.acknowledgeTransfer(TransferReference(transfer: info.id)))
        endIfInvalidatedAndIdle()
    }

    /// Runs `work` on the main actor after every delivery scheduled before it.
    private func schedule(_ work: @escaping @MainActor (URLSession) -> Void) {
        let previous = delivery
        delivery = Task { [self] in
            await previous?.value
            work(self)
        }
    }

    private func endIfInvalidatedAndIdle() {
        guard invalidated, tasks.isEmpty, let delegate else { return }
        self.delegate = nil
        URLSessionRegistry.shared.unregister(self)
        schedule { session in delegate.urlSession(session, didBecomeInvalidWithError: nil) }
    }

    private func warn(_ message: String) {
        FileHandle.standardError.write(Data("BackgroundKit: URLSession: \(message)\n".utf8))
    }
}
