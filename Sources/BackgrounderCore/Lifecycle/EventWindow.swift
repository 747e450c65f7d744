/// Identifies one event window, unique within a daemon's run.
public typealias EventWindowID = Int

/// What an event window is for: each kind has its own length (a policy value).
public enum EventWindowKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A background fetch (`performFetchWithCompletionHandler`).
    case fetch
    /// An app-refresh task (`BGAppRefreshTask`).
    case appRefresh
    /// A processing task (`BGProcessingTask`): as long as its conditions hold, up to a maximum.
    case processing
    /// A silent push (`didReceiveRemoteNotification:fetchCompletionHandler:`).
    case push
    /// A location or region event that woke or launched the app.
    case location
    /// A background session's transfers finished (`handleEventsForBackgroundURLSession`).
    case urlSession
}

/// A stretch of background time the system gives an app for one event: it may run until
/// `deadline` even with nothing else keeping it, hears its expiration shortly before, and
/// ends it early with a completion handler.
public struct EventWindow: Sendable, Hashable {
    /// What it is for.
    public var kind: EventWindowKind
    /// When it ends, on the life cycle's clock.
    public var deadline: Duration
    /// When the app hears that it is nearly over.
    public var warning: Duration
    /// Whether the app was told.
    public var warned = false

    /// Creates a window.
    public init(kind: EventWindowKind, deadline: Duration, warning: Duration) {
        self.kind = kind
        self.deadline = deadline
        self.warning = warning
    }
}
