import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem

/// The audio side of ``AppManager``'s bookkeeping, on its actor: sessions, the focus
/// verdicts last applied, what each app says it plays, and commands waiting for an app to
/// check in.
struct AudioBook: Sendable {
    /// Each app's session (absent: the default, an inactive solo-ambient session).
    var sessions: [String: AudioSessionConfiguration] = [:]
    /// When each app last activated its session, to order contenders.
    var activatedAt: [String: Duration] = [:]
    /// The verdicts last applied, to tell apps when an interruption begins or ends.
    var verdicts: [String: AudioFocus.Verdict] = [:]
    /// `NOW_PLAYING`, by app.
    var nowPlaying: [String: NowPlayingInfo] = [:]
    /// When each app published its `NOW_PLAYING`, to move the position on from there.
    var nowPlayingAt: [String: Duration] = [:]
    /// Apps with at least one stream, so focus is applied to them.
    var streamOwners: [String: Set<Int>] = [:]
    /// Remote commands for apps launched to receive them, sent once they check in.
    var pendingCommands: [String: [RemoteCommandRequest]] = [:]
    /// Remote commands sent (or queued) whose answer a person waits for, by ticket.
    var awaiting: [Int: AwaitedCommand] = [:]
    /// The last ticket given to a remote command.
    var lastTicket = 0
    /// The sound server is away: every app with streams was told so.
    var serverLost = false
    /// Microphone grants by app (`bgctl authorize ID microphone`), loaded from the store.
    var microphoneGrants: [String: Bool] = [:]

    /// The session of an app.
    func session(_ identifier: String) -> AudioSessionConfiguration {
        sessions[identifier] ?? AudioSessionConfiguration()
    }

    /// Forgets an app that exited (its streams are closed by the engine).
    mutating func forget(_ identifier: String) {
        sessions[identifier] = nil
        activatedAt[identifier] = nil
        verdicts[identifier] = nil
        nowPlaying[identifier] = nil
        nowPlayingAt[identifier] = nil
        streamOwners[identifier] = nil
    }
}
