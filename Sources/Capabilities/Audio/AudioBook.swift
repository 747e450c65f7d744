import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// The audio side of ``AppManager``'s bookkeeping, on its actor: sessions, the focus
/// verdicts last applied, what each app says it plays, and commands waiting for an app to
/// check in.
package struct AudioBook: Sendable {
    /// Each app's session (absent: the default, an inactive solo-ambient session).
    package var sessions: [BundleID: AudioSessionConfiguration] = [:]
    /// When each app last activated its session, to order contenders.
    package var activatedAt: [BundleID: Duration] = [:]
    /// The verdicts last applied, to tell apps when an interruption begins or ends.
    package var verdicts: [BundleID: AudioFocus.Verdict] = [:]
    /// `NOW_PLAYING`, by app.
    package var nowPlaying: [BundleID: NowPlayingInfo] = [:]
    /// When each app published its `NOW_PLAYING`, to move the position on from there.
    package var nowPlayingAt: [BundleID: Duration] = [:]
    /// Apps with at least one stream, so focus is applied to them.
    package var streamOwners: [BundleID: Set<Int>] = [:]
    /// Remote commands for apps launched to receive them, sent once they check in.
    package var pendingCommands: [BundleID: [RemoteCommandRequest]] = [:]
    /// Remote commands sent (or queued) whose answer a person waits for, by ticket.
    package var awaiting: [Int: AwaitedCommand] = [:]
    /// The last ticket given to a remote command.
    package var lastTicket = 0
    /// The sound server is away: every app with streams was told so.
    package var serverLost = false
    /// Microphone grants by app (`bgctl authorize ID microphone`), loaded from the store.
    package var microphoneGrants: [BundleID: Bool] = [:]

    /// The session of an app.
    package func session(_ identifier: BundleID) -> AudioSessionConfiguration {
        sessions[identifier] ?? AudioSessionConfiguration()
    }

    /// Whether a person waits for the app's answer to a remote command.
    package func owesAnswer(_ identifier: BundleID) -> Bool {
        awaiting.values.contains { $0.bundle == identifier }
    }

    /// Forgets an app that exited (its streams are closed by the engine).
    package mutating func forget(_ identifier: BundleID) {
        sessions[identifier] = nil
        activatedAt[identifier] = nil
        verdicts[identifier] = nil
        nowPlaying[identifier] = nil
        nowPlayingAt[identifier] = nil
        streamOwners[identifier] = nil
    }
}
