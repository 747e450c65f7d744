public import BackgrounderCore
public import BackgrounderProtocol

/// The app's audio session, as `AVAudioSession`: what the app does with audio, how it gets
/// on with other apps, and the interruptions it hears.
///
/// With the `audio` background mode and the playback, record or playAndRecord category, an
/// app that is playing or recording keeps running in the background.
@MainActor
public final class AudioSession {
    /// The one session.
    public static let shared = AudioSession()

    /// An interruption, as `AVAudioSession.interruptionNotification`'s user info.
    public struct Interruption: Sendable, Hashable {
        /// Whether it began or ended.
        public var began: Bool
        /// For an ending: whether the app should resume playing.
        public var shouldResume: Bool
        /// Whether the sound server went away (rather than another app's session taking over).
        public var serverLost: Bool
        /// Whether the sound server asked for quiet (a call began, by its role policy).
        public var serverRequested: Bool = false
    }

    /// Where the app's sound goes changed, as `AVAudioSession.routeChangeNotification`'s user
    /// info: why (`oldDeviceUnavailable`: headphones unplugged, the daemon paused the stream;
    /// `newDeviceAvailable`, `override`: it plays on), the stream, the outputs.
    public typealias RouteChange = AudioRouteChange

    /// The category; solo ambient until the app sets one, as on iOS.
    public private(set) var category: AudioSessionCategory = .soloAmbient
    /// The options.
    public private(set) var options: AudioSessionOptions = []
    /// Whether the app activated the session.
    public private(set) var isActive = false
    /// Whether another session interrupts this one now.
    public private(set) var isInterrupted = false
    private var observers: [(Interruption) -> Void] = []
    private var resetObservers: [() -> Void] = []
    private var routeObservers: [(RouteChange) -> Void] = []

    private init() {}

    /// Sets the category and options, as `setCategory(_:options:)`.
    /// - Throws: ``AudioError`` when the daemon refuses (it names the option at fault).
    public func setCategory(_ category: AudioSessionCategory, options: AudioSessionOptions = []) throws {
        try send(category: category, options: options, active: isActive)
        self.category = category
        self.options = options
    }

    /// Activates or deactivates the session, as `setActive(_:)`. Deactivating a session that
    /// interrupted others ends their interruption.
    public func setActive(_ active: Bool) throws {
        try send(category: category, options: options, active: active)
        isActive = active
    }

    /// Calls `handler` for every interruption from now on (on the main actor).
    public func addInterruptionObserver(_ handler: @escaping (Interruption) -> Void) {
        observers.append(handler)
    }

    /// Calls `handler` for every change of route from now on (on the main actor). With reason
    /// `oldDeviceUnavailable` (headphones unplugged: the output went away) the daemon has
    /// paused the stream, as iOS pauses playback; the app starts it again to play on.
    public func addRouteChangeObserver(_ handler: @escaping (RouteChange) -> Void) {
        routeObservers.append(handler)
    }

    /// Calls `handler` after the daemon's media services were reset (it restarted): streams
    /// it held are gone and must be opened again, as `mediaServicesWereResetNotification`.
    public func addMediaServicesResetObserver(_ handler: @escaping () -> Void) {
        resetObservers.append(handler)
    }

    /// The app reconnected to a restarted daemon: the session is set up again as the app
    /// last set it, then observers re-open their streams.
    func mediaServicesWereReset() {
        if category != .soloAmbient || !options.isEmpty || isActive {
            try? send(category: category, options: options, active: isActive)
        }
        resetObservers.forEach { $0() }
    }

    private func send(category: AudioSessionCategory, options: AudioSessionOptions, active: Bool) throws {
        guard let connection = Application.connectionForAudio else {
            throw AudioError(
                .notConnected, "the audio session needs an app launched by backgrounderd (Application.main)")
        }
        let reply = try connection.request(
            .audioSession(AudioSessionRequest(category: category, options: options, active: active)))
        // An interruption this causes or meets arrives as AUDIO_INTERRUPTION, like any other.
        if case .error(let error) = reply.body { throw AudioError(error) }
    }

    func receive(_ notice: AudioInterruption) {
        let interruption = Interruption(
            began: notice.type == .began, shouldResume: notice.shouldResume, serverLost: notice.reason == .serverLost,
            serverRequested: notice.reason == .serverRequest)
        if notice.reason == .session { isInterrupted = interruption.began }
        observers.forEach { $0(interruption) }
    }

    func receive(_ change: RouteChange) {
        routeObservers.forEach { $0(change) }
    }
}
