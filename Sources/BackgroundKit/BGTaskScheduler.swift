import BackgrounderCore
import BackgrounderProtocol
public import Foundation

/// A request to run a task later, as `BGTaskRequest`.
public class BGTaskRequest: CustomStringConvertible {
    /// One of the app's `BGTaskSchedulerPermittedIdentifiers`.
    public let identifier: String
    /// Not before this moment; `nil` means as soon as the system sees fit.
    public var earliestBeginDate: Date?

    fileprivate init(identifier: String) {
        self.identifier = identifier
    }

    fileprivate var kind: BackgroundTaskKind { .appRefresh }

    fileprivate var submission: TaskSubmission {
        TaskSubmission(identifier: identifier, kind: kind, earliestBeginDate: earliestBeginDate?.timeIntervalSince1970)
    }

    public var description: String { "\(kind.rawValue) \(identifier)" }
}

/// A short refresh of the app's content, as `BGAppRefreshTaskRequest` (needs the `fetch` mode).
public final class BGAppRefreshTaskRequest: BGTaskRequest {
    /// Creates a request for a permitted identifier.
    public override init(identifier: String) {
        super.init(identifier: identifier)
    }
}

/// Deferrable maintenance, as `BGProcessingTaskRequest` (needs the `processing` mode): it
/// runs when the device is idle and its conditions hold, and is expired when one breaks.
public final class BGProcessingTaskRequest: BGTaskRequest {
    /// Run only on external power.
    public var requiresExternalPower = false
    /// Run only with a network.
    public var requiresNetworkConnectivity = false

    /// Creates a request for a permitted identifier.
    public override init(identifier: String) {
        super.init(identifier: identifier)
    }

    fileprivate override var kind: BackgroundTaskKind { .processing }

    fileprivate override var submission: TaskSubmission {
        var submission = super.submission
        submission.requiresExternalPower = requiresExternalPower
        submission.requiresNetworkConnectivity = requiresNetworkConnectivity
        return submission
    }
}

/// A task the system launched the app for, as `BGTask`: do the work, set an expiration
/// handler, and call ``setTaskCompleted(success:)`` once.
@MainActor
public class BGTask {
    /// The request's identifier.
    public let identifier: String
    /// Called when the system needs the time back: stop, save, and complete the task.
    public var expirationHandler: (@MainActor () -> Void)?
    fileprivate let window: EventWindowID
    private var completed = false

    fileprivate init(identifier: String, window: EventWindowID) {
        self.identifier = identifier
        self.window = window
    }

    /// Ends the task; the app is suspended when nothing else keeps it running. A second
    /// call does nothing.
    public func setTaskCompleted(success: Bool) {
        guard !completed else { return }
        completed = true
        BGTaskScheduler.shared.completed(self, success: success)
    }
}

/// An app-refresh task (`BGAppRefreshTask`).
public final class BGAppRefreshTask: BGTask {}
/// A processing task (`BGProcessingTask`).
public final class BGProcessingTask: BGTask {}

/// Schedules tasks the system runs when it sees fit, as `BGTaskScheduler`.
@MainActor
public final class BGTaskScheduler {
    /// Why a request was refused.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The identifier is not in `BGTaskSchedulerPermittedIdentifiers`, or the mode is missing.
        case notPermitted(String)
        /// Too many pending requests.
        case tooManyPendingTaskRequests(String)
        /// Not launched by the daemon, or the daemon refused for another reason.
        case unavailable(String)

        public var description: String {
            switch self {
            case .notPermitted(let why), .tooManyPendingTaskRequests(let why), .unavailable(let why): why
            }
        }
    }

    /// The one scheduler.
    public static let shared = BGTaskScheduler()

    private var handlers: [String: @MainActor (BGTask) -> Void] = [:]
    private var running: [EventWindowID: BGTask] = [:]
    private var connection: AppConnection?

    private init() {}

    /// Registers the launch handler for a permitted identifier. Call it before
    /// ``Application/main(delegate:)``: after launch, registering fails, as on iOS.
    /// - Returns: Whether it was registered.
    @discardableResult
    public func register(
        forTaskWithIdentifier identifier: String, launchHandler: @escaping @MainActor (BGTask) -> Void
    ) -> Bool {
        guard connection == nil, handlers[identifier] == nil else { return false }
        handlers[identifier] = launchHandler
        return true
    }

    /// Sends the registrations once the app checked in; an identifier the manifest does not
    /// permit is dropped with the daemon's reason on standard error.
    func checkedIn(on connection: AppConnection) {
        self.connection = connection
        for identifier in handlers.keys.sorted() {
            let reply = try? connection.request(.registerTask(TaskRegistration(identifier: identifier)))
            if case .error(let error) = reply?.body {
                handlers[identifier] = nil
                FileHandle.standardError.write(Data("BackgroundKit: BGTaskScheduler: \(error.message)\n".utf8))
            }
        }
    }

    /// Submits a request, replacing a pending one with the same identifier.
    /// - Throws: ``Error`` with the daemon's reason.
    public func submit(_ request: BGTaskRequest) throws {
        guard let connection else { throw Error.unavailable("the app has not checked in with backgrounderd") }
        let reply: DaemonMessage
        do {
            reply = try connection.request(.submitTask(request.submission))
        } catch {
            throw Error.unavailable("\(error)")
        }
        guard case .error(let error) = reply.body else { return }
        switch error.code {
        case .notPermitted: throw Error.notPermitted(error.message)
        case .limitReached: throw Error.tooManyPendingTaskRequests(error.message)
        default: throw Error.unavailable(error.message)
        }
    }

    /// Cancels a pending request.
    public func cancel(taskRequestWithIdentifier identifier: String) {
        _ = try? connection?.request(.cancelTasks(TaskCancellation(identifier: identifier)))
    }

    /// Cancels every pending request.
    public func cancelAllTaskRequests() {
        _ = try? connection?.request(.cancelTasks(TaskCancellation()))
    }

    /// The pending requests, handed to `completionHandler` on the main actor.
    public func getPendingTaskRequests(completionHandler: @escaping @MainActor ([BGTaskRequest]) -> Void) {
        var requests: [BGTaskRequest] = []
        if case .taskRequests(let list)? = try? connection?.request(.pendingTasks).body {
            requests = list.requests.map { submission in
                let request: BGTaskRequest
                if submission.kind == .processing {
                    let processing = BGProcessingTaskRequest(identifier: submission.identifier)
                    processing.requiresExternalPower = submission.requiresExternalPower ?? false
                    processing.requiresNetworkConnectivity = submission.requiresNetworkConnectivity ?? false
                    request = processing
                } else {
                    request = BGAppRefreshTaskRequest(identifier: submission.identifier)
                }
                request.earliestBeginDate = submission.earliestBeginDate.map { Date(timeIntervalSince1970: $0) }
                return request
            }
        }
        Task { @MainActor in completionHandler(requests) }
    }

    /// The daemon launched a task: its handler runs with a new ``BGTask``.
    func launch(_ identifier: String, window: EventWindowID, reason: LaunchReason) {
        guard let handler = handlers[identifier] else {
            // No handler: nothing can complete it, so it is completed as failed at once.
            _ = try? connection?.request(.complete(WindowCompletion(window: window, success: false)))
            return
        }
        let task: BGTask =
            reason == .processing
            ? BGProcessingTask(identifier: identifier, window: window)
            : BGAppRefreshTask(identifier: identifier, window: window)
        running[window] = task
        handler(task)
    }

    /// The daemon is taking a task's time back.
    func expire(window: EventWindowID) {
        running[window]?.expirationHandler?()
    }

    fileprivate func completed(_ task: BGTask, success: Bool) {
        running[task.window] = nil
        _ = try? connection?.request(.complete(WindowCompletion(window: task.window, success: success)))
    }
}
