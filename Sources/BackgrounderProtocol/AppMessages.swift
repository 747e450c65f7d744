public import BackgrounderCore

/// `QUIT` and others: a request naming one app by its bundle identifier.
public struct AppReference: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID

    /// Names an app.
    public init(bundle: BundleID) {
        self.bundle = bundle
    }
}

/// `OPEN`: a person opens an app, as tapping its icon.
public struct OpenApp: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// Whether a launch is answered only once the process checked in, or ended first (with
    /// its exit and last output, as an error). Absent (as from clients before protocol 1.13):
    /// answered at once, when the process is started.
    public var wait: Bool?

    /// Names the app to open.
    public init(bundle: BundleID, wait: Bool? = nil) {
        self.bundle = bundle
        self.wait = wait
    }
}

/// `CHECKIN`: an app the daemon launched introduces itself. The daemon believes the claim
/// only if the connecting process (by `SO_PEERCRED`) is one it launched for that bundle.
public struct CheckIn: Sendable, Hashable, Codable {
    /// The bundle the app says it is.
    public var bundle: BundleID

    /// Creates a check-in.
    public init(bundle: BundleID) {
        self.bundle = bundle
    }
}

/// `CHECKIN` reply: what the app needs to finish launching.
public struct CheckInReply: Sendable, Hashable, Codable {
    /// Why it was launched.
    public var launchReason: LaunchReason
    /// Its state once checked in.
    public var state: ApplicationState
    /// The events it was launched for (`EVENT`s that waited for it), in order.
    public var events: [EventNotice]?

    /// Creates a reply.
    public init(launchReason: LaunchReason, state: ApplicationState, events: [EventNotice]? = nil) {
        self.launchReason = launchReason
        self.state = state
        self.events = events
    }
}

/// `BEGIN_TASK`: an app begins a finite-length background task.
public struct BeginTask: Sendable, Hashable, Codable {
    /// A name for logs and `bgctl ps`.
    public var name: String

    /// Creates a request.
    public init(name: String) {
        self.name = name
    }
}

/// `END_TASK`, and the reply to `BEGIN_TASK`: one task. Task 0 is iOS's `.invalid`: no task
/// was started because the app has no background time left.
public struct TaskReference: Sendable, Hashable, Codable {
    /// The task's identifier.
    public var task: Int

    /// Creates a reference.
    public init(task: Int) {
        self.task = task
    }
}

/// `OK`: a request that changes something succeeded; `detail` says what happened.
public struct Done: Sendable, Hashable, Codable {
    /// What happened, for people.
    public var detail: String
    /// The app's state afterwards, when the request was about one app.
    public var state: ApplicationState?
    /// Seconds of background time left, when in the background.
    public var backgroundTimeRemaining: Double?
    /// For `REMOTE_COMMAND`: what the app's handler answered.
    public var handlerStatus: RemoteCommandHandlerStatus?
    /// For `REMOTE_COMMAND`: why, when the app said (the app's words, not the daemon's).
    public var handlerReason: String?

    /// Creates a reply.
    public init(
        detail: String, state: ApplicationState? = nil, backgroundTimeRemaining: Double? = nil,
        handlerStatus: RemoteCommandHandlerStatus? = nil, handlerReason: String? = nil
    ) {
        self.detail = detail
        self.state = state
        self.backgroundTimeRemaining = backgroundTimeRemaining
        self.handlerStatus = handlerStatus
        self.handlerReason = handlerReason
    }
}

/// `LIFECYCLE`: sent to an app, unasked, when its state changes.
public struct LifecycleNotice: Sendable, Hashable, Codable {
    /// The delegate method to call.
    public var event: LifecycleEvent
    /// The state after the event.
    public var state: ApplicationState
    /// Seconds of background time left, in the background.
    public var backgroundTimeRemaining: Double?

    /// Creates a notice.
    public init(event: LifecycleEvent, state: ApplicationState, backgroundTimeRemaining: Double? = nil) {
        self.event = event
        self.state = state
        self.backgroundTimeRemaining = backgroundTimeRemaining
    }
}

/// `EXPIRE`: sent to an app, unasked, when its tasks' deadline or its event windows' end is
/// near: call their expiration handlers and end them.
public struct ExpireTasks: Sendable, Hashable, Codable {
    /// The tasks whose time is nearly up.
    public var tasks: [Int]
    /// The event windows nearly over (a `BGTask`'s expiration handler; a fetch's or push's
    /// completion handler is due).
    public var windows: [EventWindowID]?

    /// Creates a notice.
    public init(tasks: [Int], windows: [EventWindowID]? = nil) {
        self.tasks = tasks
        self.windows = windows
    }
}

/// `APPS` reply: every known app, for `bgctl ps`.
public struct AppList: Sendable, Hashable, Codable {
    /// One entry per loaded bundle, sorted by identifier.
    public var apps: [AppInfo]

    /// Creates a list.
    public init(apps: [AppInfo]) {
        self.apps = apps
    }
}

/// One app in `bgctl ps`. Scripts rely on `id`, `pid`, `state`, `assertions`, `cpuSeconds`.
public struct AppInfo: Sendable, Hashable, Codable {
    /// `CFBundleIdentifier`.
    public var id: BundleID
    /// `CFBundleName`.
    public var name: String
    /// The process, while running.
    public var pid: Int32?
    /// The life-cycle state.
    public var state: ApplicationState
    /// Declared background modes.
    public var modes: [String]
    /// What keeps it running: `task:NAME`, `audio`, `location`.
    public var assertions: [String]
    /// Seconds of background time left, in the background.
    public var backgroundTimeRemaining: Double?
    /// CPU time of all its processes, in seconds.
    public var cpuSeconds: Double
    /// How its last process ended.
    public var lastExit: AppExit?
    /// Set while crash-loop throttling refuses launches.
    public var throttled: AppThrottle?
    /// Whether a person force-quit it (it is then not relaunched for most events).
    public var forceQuit: Bool
    /// Its audio streams' underruns and overruns, summed, while it has streams.
    public var audioUnderruns: Int?
    public var audioOverruns: Int?
    /// What it asked a person for and waits on (`location`, `microphone`, `notifications`),
    /// as `bgctl prompts` lists it; absent when nothing waits (protocol 1.9).
    public var waitsForConsent: [String]?
    /// A background player's time frozen between refills of its audio ring, in seconds,
    /// and how many times; absent for an app never frozen so (protocol 1.12).
    public var refillFrozenSeconds: Double?
    public var refillFreezes: Int?
    /// Whether it is frozen between refills now (its state stays `background`; protocol 1.12).
    public var frozenForRefill: Bool?

    /// Creates an entry.
    public init(
        id: BundleID,
        name: String,
        pid: Int32?,
        state: ApplicationState,
        modes: [String],
        assertions: [String],
        backgroundTimeRemaining: Double?,
        cpuSeconds: Double,
        lastExit: AppExit?,
        throttled: AppThrottle?,
        forceQuit: Bool,
        audioUnderruns: Int? = nil,
        audioOverruns: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.pid = pid
        self.state = state
        self.modes = modes
        self.assertions = assertions
        self.backgroundTimeRemaining = backgroundTimeRemaining
        self.cpuSeconds = cpuSeconds
        self.lastExit = lastExit
        self.throttled = throttled
        self.forceQuit = forceQuit
        self.audioUnderruns = audioUnderruns
        self.audioOverruns = audioOverruns
    }
}

/// `WAKE`: an event for an app (`bgctl push`, `bgctl simulate`, and later the location
/// service): it is relaunched, woken or told, as the relaunch rules say.
public struct WakeRequest: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// What happened.
    public var reason: LaunchReason

    /// Creates a request.
    public init(bundle: BundleID, reason: LaunchReason) {
        self.bundle = bundle
        self.reason = reason
    }
}

/// `EVENT`: sent to a running app, unasked, when an event it registered for arrives.
public struct EventNotice: Sendable, Hashable, Codable {
    /// What happened.
    public var reason: LaunchReason
    /// The event window opened for it, which the app ends with `COMPLETE`; absent for an
    /// event that gives no time of its own.
    public var window: EventWindowID?
    /// Seconds the window lasts.
    public var seconds: Double?
    /// A push's payload.
    public var payload: JSONValue?
    /// A task's identifier (`appRefresh`, `processing`).
    public var task: String?
    /// A background session's identifier (`download`: its transfers are all finished).
    public var session: String?

    /// Creates a notice.
    public init(
        reason: LaunchReason, window: EventWindowID? = nil, seconds: Double? = nil, payload: JSONValue? = nil,
        task: String? = nil, session: String? = nil
    ) {
        self.reason = reason
        self.window = window
        self.seconds = seconds
        self.payload = payload
        self.task = task
        self.session = session
    }
}

/// `MEMORY_PRESSURE`: act as if memory were short.
public struct MemoryPressure: Sendable, Hashable, Codable {
    /// Critical pressure may end running apps too, the foreground app last, once they were
    /// warned by an earlier pressure; otherwise only suspended apps are ended. Absent means false.
    public var critical: Bool?
    /// Only warn the running apps (`MEMORY_WARNING`), ending none: the first stage of
    /// pressure, before jetsam (protocol 1.13). Absent means false.
    public var warning: Bool?

    /// Creates a request.
    public init(critical: Bool = false, warning: Bool = false) {
        self.critical = critical
        self.warning = warning ? true : nil
    }
}

/// `MEMORY_WARNING` (protocol 1.13): memory is short, as
/// `applicationDidReceiveMemoryWarning`. Running apps hear it before any app is ended, those
/// in the background first; an app that frees what it can is smaller when jetsam chooses, and
/// a running app is ended only after an earlier warning.
public struct MemoryWarning: Sendable, Hashable, Codable {
    /// Whether pressure is critical: running apps may be ended next.
    public var critical: Bool

    /// Creates a notice.
    public init(critical: Bool) {
        self.critical = critical
    }
}
