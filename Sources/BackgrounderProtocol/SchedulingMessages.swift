public import BackgrounderCore

/// `SET_FETCH_INTERVAL`: `setMinimumBackgroundFetchInterval`, from an app about itself.
public struct FetchIntervalRequest: Sendable, Hashable, Codable {
    /// `"minimum"`, `"never"` or seconds.
    public var interval: BackgroundFetchInterval

    /// Creates a request.
    public init(interval: BackgroundFetchInterval) {
        self.interval = interval
    }
}

/// `COMPLETE`: an app ends an event window early: a fetch's or a push's completion handler
/// (`result`), or a task's `setTaskCompleted(success:)` (`success`).
public struct WindowCompletion: Sendable, Hashable, Codable {
    /// The window, as its `EVENT` said.
    public var window: EventWindowID
    /// A fetch's or push's result.
    public var result: BackgroundFetchResult?
    /// A task's success.
    public var success: Bool?

    /// Creates a completion.
    public init(window: EventWindowID, result: BackgroundFetchResult? = nil, success: Bool? = nil) {
        self.window = window
        self.result = result
        self.success = success
    }
}

/// `REGISTER_TASK`: an app registers a launch handler for a task identifier, which must be
/// listed in its `BGTaskSchedulerPermittedIdentifiers`.
public struct TaskRegistration: Sendable, Hashable, Codable {
    /// The task identifier.
    public var identifier: String

    /// Creates a registration.
    public init(identifier: String) {
        self.identifier = identifier
    }
}

/// `SUBMIT_TASK`, and one request in `TASK_REQUESTS`: a `BGAppRefreshTaskRequest` or a
/// `BGProcessingTaskRequest`. A request for an identifier already pending replaces it.
public struct TaskSubmission: Sendable, Hashable, Codable {
    /// The task identifier.
    public var identifier: String
    /// `appRefresh` or `processing`.
    public var kind: BackgroundTaskKind
    /// Not before this moment, in seconds since 1970; absent means as soon as possible.
    public var earliestBeginDate: Double?
    /// Processing only: run only on external power.
    public var requiresExternalPower: Bool?
    /// Processing only: run only with a network.
    public var requiresNetworkConnectivity: Bool?

    /// Creates a submission.
    public init(
        identifier: String, kind: BackgroundTaskKind, earliestBeginDate: Double? = nil,
        requiresExternalPower: Bool? = nil, requiresNetworkConnectivity: Bool? = nil
    ) {
        self.identifier = identifier
        self.kind = kind
        self.earliestBeginDate = earliestBeginDate
        self.requiresExternalPower = requiresExternalPower
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
    }
}

/// `CANCEL_TASKS`: cancels one pending task request, or all of the app's.
public struct TaskCancellation: Sendable, Hashable, Codable {
    /// The identifier, or absent for every request.
    public var identifier: String?

    /// Creates a cancellation.
    public init(identifier: String? = nil) {
        self.identifier = identifier
    }
}

/// `TASK_REQUESTS`: the reply to `PENDING_TASKS`, an app's pending requests.
public struct TaskRequestList: Sendable, Hashable, Codable {
    /// The requests, by identifier.
    public var requests: [TaskSubmission]

    /// Creates a list.
    public init(requests: [TaskSubmission]) {
        self.requests = requests
    }
}

/// `PUSH_TOKEN`: the reply to `REGISTER_PUSH`, the app's device token.
public struct PushToken: Sendable, Hashable, Codable {
    /// 64 hexadecimal digits; a push may be addressed to it instead of the bundle.
    public var token: String
    /// The UnifiedPush endpoint the app's server posts to, once the session's distributor
    /// has given one (docs/DESKTOP.md). Sent again, as a notice, when it changes.
    public var endpoint: String?

    /// Creates a reply.
    public init(token: String, endpoint: String? = nil) {
        self.token = token
        self.endpoint = endpoint
    }
}

/// `PUSH`: a remote notification for an app, addressed by bundle or by device token.
public struct PushRequest: Sendable, Hashable, Codable {
    /// The app's bundle identifier.
    public var bundle: BundleID?
    /// The app's device token.
    public var token: String?
    /// The payload: a JSON object of at most ``PushRequest/maximumPayloadBytes`` bytes.
    /// `{"aps": {"content-available": 1}}` makes it a silent push, which wakes the app.
    public var payload: JSONValue

    /// The largest payload, as compact JSON: APNs's 4 KiB.
    public static let maximumPayloadBytes = 4096

    /// Creates a request.
    public init(bundle: BundleID? = nil, token: String? = nil, payload: JSONValue) {
        self.bundle = bundle
        self.token = token
        self.payload = payload
    }
}

/// `PUSHED`: what became of a push.
public struct PushResult: Sendable, Hashable, Codable {
    /// What happened, for people: delivered, or deferred until when.
    public var detail: String
    /// Whether it reached the app now.
    public var delivered: Bool
    /// When a deferred push goes, in seconds since 1970.
    public var deferredUntil: Double?

    /// Creates a result.
    public init(detail: String, delivered: Bool, deferredUntil: Double? = nil) {
        self.detail = detail
        self.delivered = delivered
        self.deferredUntil = deferredUntil
    }
}

/// `TASKS`: a person asks what the system has scheduled for apps.
public struct ScheduleQuery: Sendable, Hashable, Codable {
    /// One app, or absent for all.
    public var bundle: BundleID?

    /// Creates a query.
    public init(bundle: BundleID? = nil) {
        self.bundle = bundle
    }
}

/// `SCHEDULE`: every pending fetch, refresh, processing request and deferred push.
public struct ScheduleList: Sendable, Hashable, Codable {
    /// One entry per pending piece of work, by app then identifier.
    public var entries: [ScheduledWork]

    /// Creates a list.
    public init(entries: [ScheduledWork]) {
        self.entries = entries
    }
}

/// One pending piece of work in `bgctl tasks`.
public struct ScheduledWork: Sendable, Hashable, Codable {
    /// The app.
    public var bundle: BundleID
    /// `fetch`, `appRefresh`, `processing` or `push`.
    public var kind: String
    /// The task identifier (`fetch` and `push` have none).
    public var identifier: String?
    /// When it may run next, in seconds since 1970; absent when only a condition can let it.
    public var nextRun: Double?
    /// What it waits for (empty when due now or running).
    public var waitingFor: [String]
    /// Whether it runs now (its window is open).
    public var running: Bool

    /// Creates an entry.
    public init(
        bundle: BundleID, kind: String, identifier: String?, nextRun: Double?, waitingFor: [String], running: Bool
    ) {
        self.bundle = bundle
        self.kind = kind
        self.identifier = identifier
        self.nextRun = nextRun
        self.waitingFor = waitingFor
        self.running = running
    }
}

/// `SIMULATE_TASK`, `EXPIRE_TASK`: a person launches a pending task now, or expires a running
/// one, as Xcode's debugger commands do.
public struct TaskDebugRequest: Sendable, Hashable, Codable {
    /// The app.
    public var bundle: BundleID
    /// The task identifier.
    public var identifier: String

    /// Creates a request.
    public init(bundle: BundleID, identifier: String) {
        self.bundle = bundle
        self.identifier = identifier
    }
}

/// `BACKGROUND_TIME`: sent to an app, unasked, whenever its background time changes (woken,
/// a window opened or closed, a task or an assertion begun or ended).
public struct BackgroundTimeNotice: Sendable, Hashable, Codable {
    /// Seconds left, or absent when unlimited.
    public var backgroundTimeRemaining: Double?

    /// Creates a notice.
    public init(backgroundTimeRemaining: Double?) {
        self.backgroundTimeRemaining = backgroundTimeRemaining
    }
}
