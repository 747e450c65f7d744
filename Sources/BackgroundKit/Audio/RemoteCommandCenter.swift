public import BackgrounderProtocol

/// Commands a person sends to the app from outside it (`BackgroundPlayer pause`, a media
/// key, MPRIS), as `MPRemoteCommandCenter`. The daemon wakes a suspended app, or launches a
/// stopped one into the background, to deliver them; apps with the `audio` mode only.
///
/// What the handler returns goes back to the person who sent the command, as an
/// `MPRemoteCommand` target's `MPRemoteCommandHandlerStatus` does: `BackgroundPlayer next` on
/// the last track is told there is none. A person waits 10 s at most for it.
@MainActor
public final class RemoteCommandCenter {
    /// The one center.
    public static let shared = RemoteCommandCenter()

    /// Called with each command and its argument (a path for `play`, seconds for
    /// `changePlaybackPosition`); every command it is given counts as carried out. Set a
    /// handler that says how it went with ``addTarget(handler:)``.
    public var handler: ((RemoteCommand, String?) -> Void)? {
        didSet { if handler != nil { statusHandler = nil } }
    }
    private var statusHandler: ((RemoteCommand, String?) -> (RemoteCommandHandlerStatus, reason: String?))?
    private var early: [RemoteCommandRequest] = []

    private init() {}

    /// Sets the handler and hands it commands that arrived before it was set. Every command
    /// counts as carried out (``RemoteCommandHandlerStatus/success``).
    public func setHandler(_ handler: @escaping (RemoteCommand, String?) -> Void) {
        self.handler = handler
        deliverEarly()
    }

    /// Sets a handler that says what it made of each command, as `MPRemoteCommand`'s
    /// `addTarget(handler:)`, and hands it commands that arrived before it was set.
    /// - Parameter handler: Called with each command and its argument; its status reaches the
    ///   person who sent the command (``RemoteCommandHandlerStatus/noSuchContent`` for `next`
    ///   on the last track, ``RemoteCommandHandlerStatus/noActionableNowPlayingItem`` when
    ///   nothing is playing).
    public func addTarget(handler: @escaping (RemoteCommand, String?) -> RemoteCommandHandlerStatus) {
        addTarget(explaining: { (handler($0, $1), nil) })
    }

    /// As ``addTarget(handler:)``, with a handler that also says why a command was not carried
    /// out: the reason reaches the person who sent it (`BackgroundPlayer play FILE` prints why
    /// the app cannot read FILE).
    public func addTarget(
        explaining handler: @escaping (RemoteCommand, String?) -> (RemoteCommandHandlerStatus, reason: String?)
    ) {
        self.handler = nil
        statusHandler = handler
        deliverEarly()
    }

    private func deliverEarly() {
        let waiting = early
        early = []
        for request in waiting { receive(request) }
    }

    func receive(_ request: RemoteCommandRequest) {
        let status: RemoteCommandHandlerStatus
        var reason: String?
        if let statusHandler {
            (status, reason) = statusHandler(request.command, request.argument)
        } else if let handler {
            handler(request.command, request.argument)
            status = .success
        } else {
            early.append(request)
            return
        }
        guard let ticket = request.ticket else { return }
        try? Application.connectionForAudio?.post(
            .remoteCommandStatus(RemoteCommandStatusReport(ticket: ticket, status: status, reason: reason)))
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
