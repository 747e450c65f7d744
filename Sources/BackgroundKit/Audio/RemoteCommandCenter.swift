public import BackgrounderProtocol

/// Commands a person sends to the app from outside it (`BackgroundPlayer pause`, a media
/// key, MPRIS), as `MPRemoteCommandCenter`. The daemon wakes a suspended app, or launches a
/// stopped one into the background, to deliver them; apps with the `audio` mode only.
@MainActor
public final class RemoteCommandCenter {
    /// The one center.
    public static let shared = RemoteCommandCenter()

    /// Called with each command and its argument (a path for `play`, seconds for
    /// `changePlaybackPosition`).
    public var handler: ((RemoteCommand, String?) -> Void)?
    private var early: [RemoteCommandRequest] = []

    private init() {}

    /// Sets the handler and hands it commands that arrived before it was set.
    public func setHandler(_ handler: @escaping (RemoteCommand, String?) -> Void) {
        self.handler = handler
        let waiting = early
        early = []
        for request in waiting { handler(request.command, request.argument) }
    }

    func receive(_ request: RemoteCommandRequest) {
        guard let handler else {
            early.append(request)
            return
        }
        handler(request.command, request.argument)
    }
}

/// What the app is playing, for people who look from outside (`BackgroundPlayer status`,
/// `bgctl audio`), as `MPNowPlayingInfoCenter`.
@MainActor
public final class NowPlayingInfoCenter {
    /// The one center.
    public static let shared = NowPlayingInfoCenter()
    private init() {}

    /// The information; setting it tells the daemon (it is kept there while the app sleeps).
    public var nowPlayingInfo: NowPlayingInfo? {
        didSet {
            guard let nowPlayingInfo, nowPlayingInfo != oldValue else { return }
            try? Application.connectionForAudio?.post(.nowPlaying(nowPlayingInfo))
        }
    }
}
