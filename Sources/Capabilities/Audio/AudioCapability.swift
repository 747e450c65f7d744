package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
import Logging

/// Audio for apps: sessions and their arbitration, streams, the `audio` assertion,
/// microphone grants and remote commands, on the app manager's actor.
///
/// An app with the `audio` mode and a playback category keeps running while one of its
/// streams plays or records; when it pauses or its stream runs dry it loses the assertion
/// and is suspended after the grace period like any other app. Requests are in
/// AudioCapability+Requests.swift.
@AppCoreActor
package final class AudioCapability: AppCapability {
    /// The engine and its socket.
    package let service: AudioService
    package let store: StateStore
    package var book = AudioBook()
    /// The apps' MPRIS players on the session bus.
    package let players: MediaPlayers
    /// Whether a player whose ring is full is frozen until it runs low (``RefillFreeze``).
    package let freezesBetweenRefills: Bool

    /// Streams one app may have open: plenty for a player and a recorder, and a bound on the
    /// shared memory (at most 10 s per ring) one app can make the daemon hold.
    package static let maximumStreamsPerApp = 8

    /// Loads microphone grants from the store.
    package nonisolated init(
        service: AudioService, store: StateStore, players: MediaPlayers, freezesBetweenRefills: Bool = true
    ) {
        self.freezesBetweenRefills = freezesBetweenRefills
        self.service = service
        self.store = store
        self.players = players
        book.microphoneGrants = ((try? store.microphoneAuthorizations()) ?? [:]).mapValues { $0 == .granted }
    }

    package var authorizationServices: [AuthorizationService] { [.microphone] }

    // MARK: The life cycle

    package func app(_ identifier: BundleID, changed change: LifecycleChange, in apps: any AppCore) {
        switch change {
        case .launched, .windowsClosed, .forceQuit, .assertionsChanged:
            break
        case .checkedIn:
            // Commands that waited for the app to check in.
            for request in book.pendingCommands.removeValue(forKey: identifier) ?? [] {
                apps.notify(identifier, .remoteCommand(request))
            }
            updateAssertion(identifier, in: apps)
        case .moved:
            // A change of state may change who is heard (the foreground app left, say).
            applyFocus(in: apps)
        case .exited:
            players.appExited(identifier)
            abandonAnswers(of: identifier, in: apps)
            // Its streams and session go.
            guard book.sessions[identifier] != nil || book.streamOwners[identifier] != nil else { return }
            service.engine.closeAll(of: identifier)
            book.forget(identifier)
            applyFocus(in: apps)
        }
    }

    /// Commands waiting for the app were the old identity's; the microphone grant is read again.
    package func identityChanged(_ identifier: BundleID, in apps: any AppCore) {
        book.pendingCommands[identifier] = nil
        book.forget(identifier)
        book.microphoneGrants[identifier] = (try? store.microphoneAuthorizations())?[identifier] == .granted
    }

    /// Underruns and overruns summed per app, from one snapshot of the engine.
    package func describe(_ list: inout [AppInfo], in apps: any AppCore) {
        let streams = Dictionary(grouping: service.engine.snapshot(), by: \.bundle)
        for index in list.indices {
            guard let own = streams[list[index].id] else { continue }
            list[index].audioUnderruns = own.reduce(0) { $0 + $1.underruns }
            list[index].audioOverruns = own.reduce(0) { $0 + $1.overruns }
        }
    }

    // MARK: Arbitration and the assertion

    /// Decides every app's verdict again and carries out what changed: corks, volumes,
    /// interruption notices and `audio` assertions.
    package func applyFocus(in apps: any AppCore) {
        let concerned = Set(book.sessions.keys).union(book.streamOwners.keys)
        guard !concerned.isEmpty else { return }
        let participants = concerned.sorted().compactMap { identifier -> AudioFocus.Participant? in
            guard apps.isRunning(identifier), let manifest = apps.manifest(of: identifier) else { return nil }
            return AudioFocus.Participant(
                identifier: identifier,
                session: book.session(identifier),
                hasAudioMode: manifest.backgroundModes.contains(.audio),
                isForeground: apps.foreground == identifier,
                activatedAt: book.activatedAt[identifier] ?? .zero)
        }
        let verdicts = AudioFocus.decide(participants)
        for (identifier, verdict) in verdicts.sorted(by: { $0.key < $1.key }) {
            let previous = book.verdicts[identifier] ?? AudioFocus.Verdict()
            book.verdicts[identifier] = verdict
            // Streams are opened with the verdict in force, so only a change needs the engine
            // (this runs after every change of state, and the engine call takes its lock).
            guard verdict != previous else { continue }
            service.engine.apply(
                to: identifier, interrupted: verdict.interrupted, background: verdict.silencedInBackground,
                volume: verdict.ducked ? AudioFocus.duckedVolume : 1)
            if verdict.interrupted != previous.interrupted {
                let notice =
                    verdict.interrupted
                    ? AudioInterruption(type: .began, reason: .session)
                    : AudioInterruption(type: .ended, shouldResume: true, reason: .session)
                apps.appLogger(identifier).info("audio interruption \(notice.type.rawValue)")
                if !verdict.interrupted {
                    // Its stream plays again: it must be awake to keep it fed and to hear so.
                    apps.wakeIfSuspended(identifier, because: "its audio session")
                }
                apps.notify(identifier, .audioInterruption(notice))
            }
            if verdict.ducked != previous.ducked {
                apps.appLogger(identifier).debug(verdict.ducked ? "ducked" : "no longer ducked")
            }
        }
        for identifier in verdicts.keys.sorted() { updateAssertion(identifier, in: apps) }
    }

    /// Holds the `audio` assertion while the app may play in the background and plays or
    /// records, or owes a person the answer to a remote command.
    ///
    /// The answer is part of the command: a player launched or woken for `play` must not be
    /// suspended by its grace period before it heard the command or while it opens its
    /// stream (a slow launch on a busy machine used the whole grace before it checked in).
    /// The wait for the answer bounds it, so this keeps no app longer than
    /// ``remoteCommandAnswerSeconds``.
    package func updateAssertion(_ identifier: BundleID, in apps: any AppCore) {
        guard apps.isRunning(identifier), let manifest = apps.manifest(of: identifier) else { return }
        let session = book.session(identifier)
        let verdict = book.verdicts[identifier] ?? AudioFocus.Verdict()
        let plays =
            session.isActive && session.category.continuesInBackground && !verdict.interrupted
            && service.engine.isActive(identifier)
        let held = manifest.backgroundModes.contains(.audio) && (plays || book.owesAnswer(identifier))
        apps.setAssertion(.audio, held: held, for: identifier)
    }

    /// Freezes the app while it sleeps until its ring runs low, thaws it when it must run.
    /// Read from the engine now, not from the event: events queue, and only the present counts.
    private func holdForRefill(_ bundle: BundleID, in apps: any AppCore) {
        guard freezesBetweenRefills else { return }
        apps.holdForRefill(bundle, frozen: service.engine.sleepsUntilRefill(bundle))
    }

    /// What the engine reported.
    package func engineEvent(_ event: AudioEngineEvent, in apps: any AppCore) {
        switch event {
        case .activity(_, let bundle, let active):
            apps.appLogger(bundle).debug(active ? "audio active" : "audio stopped")
            updateAssertion(bundle, in: apps)
            holdForRefill(bundle, in: apps)
        case .silence(let stream, let bundle, let silent, let limit):
            // Said at notice level: it costs the app its assertion, or gives it back.
            apps.appLogger(bundle).notice(
                silent
                    ? "audio stream \(stream) has played only silence for \(limit): silence is not background audio, so it no longer counts as playing"
                    : "audio stream \(stream) carries sound again: it counts as playing")
            updateAssertion(bundle, in: apps)
            holdForRefill(bundle, in: apps)
        case .routeChanged(let bundle, let change):
            apps.appLogger(bundle).notice(
                "audio route changed (\(change.reason.rawValue)): stream \(change.stream) went from \(change.previousOutput ?? "?") to \(change.output ?? "?")\(change.paused ? "; paused" : "")"
            )
            apps.notify(bundle, .audioRouteChange(change))
        case .serverCork(let stream, let bundle, let corked):
            // The server's policy (a call began) is an interruption, as another app's session is.
            apps.appLogger(bundle).info(
                "the sound server \(corked ? "asked stream \(stream) to be quiet" : "let stream \(stream) play again")")
            if !corked { apps.wakeIfSuspended(bundle, because: "its audio may play again") }
            apps.notify(
                bundle,
                .audioInterruption(
                    corked
                        ? AudioInterruption(type: .began, reason: .serverRequest)
                        : AudioInterruption(type: .ended, shouldResume: true, reason: .serverRequest)))
        case .refill(let bundle):
            holdForRefill(bundle, in: apps)
        case .hungUp(let stream, let bundle):
            book.streamOwners[bundle]?.remove(stream)
            apps.appLogger(bundle).info("audio stream \(stream) closed by the app")
            updateAssertion(bundle, in: apps)
            holdForRefill(bundle, in: apps)
        case .serverLost(let reason):
            book.serverLost = true
            for bundle in book.streamOwners.keys.sorted() {
                apps.appLogger(bundle).notice("audio interrupted: the sound server went away (\(reason))")
                apps.notify(bundle, .audioInterruption(AudioInterruption(type: .began, reason: .serverLost)))
            }
        case .serverBack:
            guard book.serverLost else { return }
            book.serverLost = false
            for bundle in book.streamOwners.keys.sorted() {
                apps.appLogger(bundle).notice("audio resumes: the sound server is back")
                apps.notify(
                    bundle, .audioInterruption(AudioInterruption(type: .ended, shouldResume: true, reason: .serverLost))
                )
            }
        }
    }
}
