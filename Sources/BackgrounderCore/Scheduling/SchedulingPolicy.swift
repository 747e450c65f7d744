/// The numbers of the scheduling rules: event windows, background fetch, task requests and
/// silent push. Every rule in this folder takes them as an argument, so tests run a day in
/// microseconds and a policy (``BackgroundPolicy/scheduling(for:onExternalPower:)``, or a
/// plug-in) can change them per app and per power state.
///
/// The defaults are iOS's documented or observed numbers.
public struct SchedulingPolicy: Sendable, Hashable, Codable {
    /// How long a background-fetch window lasts (iOS: 30 s).
    public var fetchWindow: Duration = .seconds(30)
    /// How long an app-refresh task's window lasts (iOS: 30 s).
    public var appRefreshWindow: Duration = .seconds(30)
    /// How long a silent push's window lasts (iOS: 30 s).
    public var pushWindow: Duration = .seconds(30)
    /// How long a location or region event's window lasts (iOS: about 10 s).
    public var locationWindow: Duration = .seconds(10)
    /// The longest a processing task runs even while its conditions hold (iOS: minutes).
    public var processingMaximum: Duration = .seconds(600)
    /// No app fetches more often than this, whatever interval it asked for (iOS: about 15 min).
    public var minimumFetchInterval: Duration = .seconds(900)
    /// Scheduled fetch and app-refresh launches per app in any 24 hours.
    public var dailyFetchBudget: Int = 48
    /// The longest the exponential backoff after empty fetches makes an app wait.
    public var fetchBackoffCap: Duration = .seconds(8 * 3600)
    /// An app the person opened within this long is favoured: it fetches at its plain
    /// interval, without backoff.
    public var favouredWithin: Duration = .seconds(3600)
    /// How late a due job may run so that several share one wake-up (systemd's `AccuracySec`):
    /// deferred pushes and processing tasks.
    public var coalescingTolerance: Duration = .seconds(300)
    /// The same for background fetch and app-refresh tasks, which iOS runs opportunistically
    /// with no promise of time beyond "not before": a longer tolerance lets more of them share
    /// a wake-up (bgbench schedule: 15 minutes gives about 7x fewer wake-ups than one timer per
    /// app over a day of 20 apps, 5 minutes about 3x).
    public var fetchTolerance: Duration = .seconds(900)
    /// How long the device must be idle (screen locked, no app in front) before processing
    /// tasks run.
    public var idleBeforeProcessing: Duration = .seconds(300)
    /// Silent pushes an app may receive at once after a quiet spell (the token bucket's size).
    public var pushBurst: Int = 3
    /// One more silent push is allowed each time this passes (3 an hour).
    public var pushRefill: Duration = .seconds(1200)
    /// A task request's `earliestBeginDate` may be at most this far ahead.
    public var maximumEarliestBeginDelay: Duration = .seconds(7 * 86400)

    // Background transfers (plug-in policies do not set these yet: their C numbers predate
    // transfers, so every policy has these defaults unless `--scheduling` changes them).

    /// How long the window lasts that an app is woken or launched into when its session's
    /// transfers are all finished (`handleEventsForBackgroundURLSession`; iOS: about 30 s).
    public var urlSessionWindow: Duration = .seconds(30)
    /// Transfers of one app running at once (`httpMaximumConnectionsPerHost`'s default is 6 on
    /// iOS; background sessions run fewer).
    public var transferConcurrency: Int = 4
    /// Transfers one app may have accepted and not yet heard the end of.
    public var transferPending: Int = 200
    /// Bytes one app's transfers may hold on disk: partial downloads and finished files it has
    /// not yet taken.
    public var transferDiskBytes: Int = 8 << 30
    /// The first retry's delay after a transient failure; each next one doubles, with jitter.
    public var transferRetryDelay: Duration = .seconds(2)
    /// The longest delay between retries.
    public var transferRetryCap: Duration = .seconds(600)
    /// A transfer still not done this long after it was created fails
    /// (`timeoutIntervalForResource`, 7 days by default on iOS).
    public var transferResourceTimeout: Duration = .seconds(7 * 86400)

    /// iOS's numbers.
    public init() {}
}
