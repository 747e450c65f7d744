/// Decides how much background time apps get and how the daemon treats them.
///
/// The standard policy carries iOS's numbers; a plug-in policy (a shared library in a
/// bundle) can replace it. Every answer is pure: same inputs, same answer.
public protocol BackgroundPolicy: Sendable {
    /// A short name for logs and `bgctl status`.
    var name: String { get }

    /// How long an app with no assertion may run after entering the background before it is
    /// suspended.
    func suspendGrace(for app: AppManifest) -> Duration

    /// How long finite-length background tasks may run, counted from entering the background.
    func backgroundTaskBudget(for app: AppManifest) -> Duration

    /// How long before the budget ends the app's expiration handlers are called.
    func expirationWarning(for app: AppManifest) -> Duration

    /// How many crashes within ``crashLoopWindow(for:)`` make a crash loop.
    func crashLoopLimit(for app: AppManifest) -> Int

    /// The window over which crashes are counted for crash-loop throttling.
    func crashLoopWindow(for app: AppManifest) -> Duration

    /// How many regions one app may monitor at once (iOS allows 20).
    func maximumMonitoredRegions(for app: AppManifest) -> Int

    /// The scheduling numbers (event windows, fetch, task requests, push) for an app in a power
    /// state. The daemon asks again when power comes or goes. The default is iOS's numbers.
    func scheduling(for app: AppManifest, onExternalPower: Bool) -> SchedulingPolicy

    /// The most of one CPU an app may use while it runs in the background on an audio or
    /// location assertion (`cpu.max`, where the cpu controller is delegated), or `nil` for no
    /// ceiling. The default is half a core: enough to decode audio or follow a walk many
    /// times over, and a runaway loop leaves the rest of the machine to the person.
    func backgroundCPUCeiling(for app: AppManifest) -> Double?

    /// How long a playback stream may carry only silence before it no longer counts as
    /// playing, so the app loses the `audio` assertion (``SilenceDetector``); `nil` for no
    /// limit.
    func backgroundAudioSilenceLimit(for app: AppManifest) -> Duration?
}

extension BackgroundPolicy {
    /// Half a core for every app.
    public func backgroundCPUCeiling(for app: AppManifest) -> Double? { 0.5 }

    /// The standard policy's five minutes for every app.
    public func backgroundAudioSilenceLimit(for app: AppManifest) -> Duration? {
        StandardPolicy.defaultAudioSilenceLimit
    }

    /// iOS's numbers for every app in every power state.
    public func scheduling(for app: AppManifest, onExternalPower: Bool) -> SchedulingPolicy { SchedulingPolicy() }
}

/// iOS's rules and numbers, each configurable.
public struct StandardPolicy: BackgroundPolicy {
    /// Grace before suspending an app with no assertion (iOS: a few seconds).
    public var suspendGrace: Duration
    /// Finite-length task budget (iOS 13+: about 30 s; classically 180 s).
    public var taskBudget: Duration
    /// How long before the deadline expiration handlers run.
    public var expirationWarning: Duration
    /// Crashes within `crashLoopWindow` that count as a crash loop (as systemd's 5 starts in 10 s).
    public var crashLoopLimit: Int
    /// The crash-loop window.
    public var crashLoopWindow: Duration
    /// Regions per app. iOS allows 20 because its hardware watches them; here a spatial index
    /// keeps the cost per fix flat, so the standard policy allows many.
    public var maximumMonitoredRegions: Int
    /// The scheduling numbers, the same for every app and power state.
    public var scheduling: SchedulingPolicy
    /// How long a background player may play silence (``BackgroundPolicy/backgroundAudioSilenceLimit(for:)``).
    public var audioSilenceLimit: Duration?

    /// Five minutes: far past the gaps between tracks or in speech, short of the hour an app
    /// playing silence to stay awake is after. Music with a longer silence in it (a hidden
    /// track minutes after the last) is suspended in that silence; `--audio-silence-limit`
    /// changes it.
    public static let defaultAudioSilenceLimit: Duration = .seconds(300)

    /// Creates the standard policy.
    public init(
        suspendGrace: Duration = .seconds(5),
        taskBudget: Duration = .seconds(30),
        expirationWarning: Duration = .seconds(5),
        crashLoopLimit: Int = 5,
        crashLoopWindow: Duration = .seconds(10),
        maximumMonitoredRegions: Int = 10_000,
        scheduling: SchedulingPolicy = SchedulingPolicy(),
        audioSilenceLimit: Duration? = StandardPolicy.defaultAudioSilenceLimit
    ) {
        self.audioSilenceLimit = audioSilenceLimit
        self.scheduling = scheduling
        self.maximumMonitoredRegions = maximumMonitoredRegions
        self.suspendGrace = suspendGrace
        self.taskBudget = taskBudget
        self.expirationWarning = expirationWarning
        self.crashLoopLimit = crashLoopLimit
        self.crashLoopWindow = crashLoopWindow
    }

    public var name: String { "standard" }
    public func suspendGrace(for app: AppManifest) -> Duration { suspendGrace }
    public func backgroundTaskBudget(for app: AppManifest) -> Duration { taskBudget }
    public func expirationWarning(for app: AppManifest) -> Duration { min(expirationWarning, taskBudget) }
    public func crashLoopLimit(for app: AppManifest) -> Int { crashLoopLimit }
    public func crashLoopWindow(for app: AppManifest) -> Duration { crashLoopWindow }
    public func maximumMonitoredRegions(for app: AppManifest) -> Int { maximumMonitoredRegions }
    public func scheduling(for app: AppManifest, onExternalPower: Bool) -> SchedulingPolicy { scheduling }
    public func backgroundAudioSilenceLimit(for app: AppManifest) -> Duration? { audioSilenceLimit }
}
