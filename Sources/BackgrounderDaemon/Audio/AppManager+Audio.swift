import BackgrounderCore
import BackgrounderProtocol
import Logging

/// The audio side of ``AppManager``: sessions and their arbitration, streams, the `audio`
/// assertion, microphone grants and remote commands, on the same actor as the life cycle.
///
/// An app with the `audio` mode and a playback category keeps running while one of its
/// streams plays or records; when it pauses or its stream runs dry it loses the assertion
/// and is suspended after the grace period like any other app.
extension AppManager {
    /// Streams one app may have open: plenty for a player and a recorder, and a bound on the
    /// shared memory (at most 10 s per ring) one app can make the daemon hold.
    static let maximumStreamsPerApp = 8

    // MARK: Sessions

    /// `AUDIO_SESSION` from an app.
    func setAudioSession(_ identifier: String, _ request: AudioSessionRequest) throws(ProtocolError) -> Done {
        let options: AudioSessionOptions
        do {
            options = try AudioSessionOptions(names: request.options)
        } catch {
            throw ProtocolError(.badRequest, error.description)
        }
        let previous = audio.session(identifier)
        let session = AudioSessionConfiguration(category: request.category, options: options, isActive: request.active)
        audio.sessions[identifier] = session
        if session.isActive && (!previous.isActive || previous.category != session.category) {
            audio.activatedAt[identifier] = now
        }
        applyAudioFocus()
        let verdict = audio.verdicts[identifier] ?? AudioFocus.Verdict()
        var detail =
            "audio session \(session.category.rawValue)\(options.names.isEmpty ? "" : " " + options.names.joined(separator: ","))"
        detail += session.isActive ? " active" : " inactive"
        if verdict.interrupted { detail += "; interrupted by another app's session" }
        return Done(detail: detail, state: apps[identifier]?.lifecycle.state)
    }

    // MARK: Streams

    /// `AUDIO_STREAM_OPEN` from an app.
    func openAudioStream(_ identifier: String, peer: Int32, _ request: AudioStreamRequest) throws(ProtocolError)
        -> AudioStreamGrant
    {
        guard let service = audioService else { throw ProtocolError(.failed, "audio is not available in this daemon") }
        let manifest = try app(identifier).bundle.manifest
        do {
            try request.format.validate()
        } catch {
            throw ProtocolError(.badRequest, "format.\(error.field): \(error.reason)")
        }
        let session = audio.session(identifier)
        switch request.direction {
        case .playback where !session.category.plays:
            throw ProtocolError(.failed, "the \(session.category.rawValue) category does not play; set playback first")
        case .record where !session.category.records:
            throw ProtocolError(
                .failed, "the \(session.category.rawValue) category does not record; set record or playAndRecord first")
        case .record:
            if let missing = microphoneRefusal(identifier, manifest) { throw ProtocolError(.failed, missing) }
        default:
            break
        }
        let open = audio.streamOwners[identifier]?.count ?? 0
        guard open < Self.maximumStreamsPerApp else {
            throw ProtocolError(
                .failed, "\(identifier) already has \(open) audio streams, the most an app may have; close one first")
        }
        let plan = AudioBufferPlan(
            format: request.format, playback: request.direction == .playback, requestedSeconds: request.bufferSeconds)
        let verdict = audio.verdicts[identifier] ?? AudioFocus.Verdict()
        var corkedBy: Set<String> = []
        if verdict.interrupted { corkedBy.insert("interrupted") }
        if verdict.silencedInBackground { corkedBy.insert("background") }
        let opened: (stream: Int, token: String)
        do {
            opened = try service.engine.open(
                bundle: identifier, direction: request.direction, format: request.format, plan: plan, ownerPID: peer,
                corkedBy: corkedBy, volume: verdict.ducked ? AudioFocus.duckedVolume : 1)
        } catch {
            throw ProtocolError(.failed, "cannot open an audio stream: \(error)")
        }
        audio.streamOwners[identifier, default: []].insert(opened.stream)
        appLogger(identifier).info(
            "opened \(request.direction.rawValue) stream \(opened.stream): \(request.format), ring \(plan.ringCapacity) bytes"
        )
        applyAudioFocus()
        return AudioStreamGrant(
            stream: opened.stream, token: opened.token, socket: service.socket.path, capacity: plan.ringCapacity,
            lowWater: plan.lowWater)
    }

    /// Why an app may not record, or `nil` when it may.
    private func microphoneRefusal(_ identifier: String, _ manifest: AppManifest) -> String? {
        guard manifest.usageDescriptions.microphone != nil else {
            return "\(identifier)'s Info.plist has no \(InfoPlistKey.microphoneUsage.rawValue), which recording needs"
        }
        guard audio.microphoneGrants[identifier] == true else {
            return
                "microphone access is not granted; a person grants it with `bgctl authorize \(identifier) microphone`"
        }
        return nil
    }

    /// `AUDIO_STREAM_CONTROL` from an app.
    func controlAudioStream(_ identifier: String, _ control: AudioStreamControl) async throws -> Done {
        guard let engine = audioService?.engine else { throw ProtocolError(.failed, "audio is not available") }
        switch control.action {
        case .start:
            // As AVAudioPlayer does, starting a stream activates the session if the app did not.
            if !audio.session(identifier).isActive {
                audio.sessions[identifier, default: AudioSessionConfiguration()].isActive = true
                audio.activatedAt[identifier] = now
            }
            _ = try engine.setStarted(control.stream, of: identifier, true)
            applyAudioFocus()
        case .pause:
            _ = try engine.setStarted(control.stream, of: identifier, false)
            updateAudioAssertion(identifier)
        case .flush:
            try engine.flush(control.stream, of: identifier)
        case .drain:
            try await engine.drain(control.stream, of: identifier)
        case .close:
            try engine.close(control.stream, of: identifier)
            audio.streamOwners[identifier]?.remove(control.stream)
            updateAudioAssertion(identifier)
        }
        return Done(
            detail: "stream \(control.stream): \(control.action.rawValue)", state: apps[identifier]?.lifecycle.state)
    }

    /// `NOW_PLAYING` from an app.
    func setNowPlaying(_ identifier: String, _ info: NowPlayingInfo) -> Done {
        audio.nowPlaying[identifier] = info
        return Done(detail: "now playing: \(info.title)")
    }

    // MARK: Arbitration and the assertion

    /// Decides every app's verdict again and carries out what changed: corks, volumes,
    /// interruption notices and `audio` assertions.
    func applyAudioFocus() {
        guard let engine = audioService?.engine else { return }
        let concerned = Set(audio.sessions.keys).union(audio.streamOwners.keys)
        guard !concerned.isEmpty else { return }
        let participants = concerned.sorted().compactMap { identifier -> AudioFocus.Participant? in
            guard let app = apps[identifier], app.process != nil else { return nil }
            return AudioFocus.Participant(
                identifier: identifier,
                session: audio.session(identifier),
                hasAudioMode: app.bundle.manifest.backgroundModes.contains(.audio),
                isForeground: foreground == identifier,
                activatedAt: audio.activatedAt[identifier] ?? .zero)
        }
        let verdicts = AudioFocus.decide(participants)
        for (identifier, verdict) in verdicts.sorted(by: { $0.key < $1.key }) {
            let previous = audio.verdicts[identifier] ?? AudioFocus.Verdict()
            audio.verdicts[identifier] = verdict
            // Streams are opened with the verdict in force, so only a change needs the engine
            // (this runs after every life-cycle action, and the engine call takes its lock).
            guard verdict != previous else { continue }
            engine.apply(
                to: identifier, interrupted: verdict.interrupted, background: verdict.silencedInBackground,
                volume: verdict.ducked ? AudioFocus.duckedVolume : 1)
            if verdict.interrupted != previous.interrupted {
                let notice =
                    verdict.interrupted
                    ? AudioInterruption(type: .began, reason: .session)
                    : AudioInterruption(type: .ended, shouldResume: true, reason: .session)
                appLogger(identifier).info("audio interruption \(notice.type.rawValue)")
                if !verdict.interrupted, var app = apps[identifier], app.lifecycle.state == .suspended {
                    // Its stream plays again: it must be awake to keep it fed and to hear so.
                    let actions = app.lifecycle.wake(now: now)
                    apps[identifier] = app
                    perform(actions, for: identifier)
                }
                notify(identifier, .audioInterruption(notice))
            }
            if verdict.ducked != previous.ducked {
                appLogger(identifier).debug(verdict.ducked ? "ducked" : "no longer ducked")
            }
        }
        for identifier in verdicts.keys.sorted() { updateAudioAssertion(identifier) }
    }

    /// Holds the `audio` assertion while the app may play in the background and plays or records.
    func updateAudioAssertion(_ identifier: String) {
        guard var app = apps[identifier], app.process != nil, let engine = audioService?.engine else { return }
        let session = audio.session(identifier)
        let verdict = audio.verdicts[identifier] ?? AudioFocus.Verdict()
        let held =
            app.bundle.manifest.backgroundModes.contains(.audio) && session.isActive
            && session.category.continuesInBackground && !verdict.interrupted && engine.isActive(identifier)
        let before = app.lifecycle.assertions.contains("audio")
        let actions = app.lifecycle.setAssertion("audio", held: held, now: now)
        apps[identifier] = app
        if !actions.isEmpty {
            perform(actions, for: identifier)
        } else if before != app.lifecycle.assertions.contains("audio") {
            // The grace period (or unlimited time) starts now: move the app's timer.
            reschedule(identifier)
        }
    }

    /// What the engine reported.
    func audioEngineEvent(_ event: AudioEngineEvent) {
        switch event {
        case .activity(_, let bundle, let active):
            appLogger(bundle).debug(active ? "audio active" : "audio stopped")
            updateAudioAssertion(bundle)
        case .hungUp(let stream, let bundle):
            audio.streamOwners[bundle]?.remove(stream)
            appLogger(bundle).info("audio stream \(stream) closed by the app")
            updateAudioAssertion(bundle)
        case .serverLost(let reason):
            audio.serverLost = true
            for bundle in audio.streamOwners.keys.sorted() {
                appLogger(bundle).notice("audio interrupted: the sound server went away (\(reason))")
                notify(bundle, .audioInterruption(AudioInterruption(type: .began, reason: .serverLost)))
            }
        case .serverBack:
            guard audio.serverLost else { return }
            audio.serverLost = false
            for bundle in audio.streamOwners.keys.sorted() {
                appLogger(bundle).notice("audio resumes: the sound server is back")
                notify(
                    bundle, .audioInterruption(AudioInterruption(type: .ended, shouldResume: true, reason: .serverLost))
                )
            }
        }
    }

    /// The app exited: its streams and session go.
    func audioAppExited(_ identifier: String) {
        guard audio.sessions[identifier] != nil || audio.streamOwners[identifier] != nil else { return }
        audioService?.engine.closeAll(of: identifier)
        audio.forget(identifier)
        applyAudioFocus()
    }

    // MARK: Grants

    /// `bgctl authorize ID microphone [granted|denied]`.
    func authorizeMicrophone(_ request: Authorize) throws(ProtocolError) -> Done {
        let identifier = request.bundle
        let manifest = try app(identifier).bundle.manifest
        let granted: Bool
        switch request.level {
        case "granted", "": granted = true
        case "denied": granted = false
        default: throw ProtocolError(.failed, "'\(request.level)' is not a microphone grant (use granted or denied)")
        }
        if granted && manifest.usageDescriptions.microphone == nil {
            throw ProtocolError(
                .failed,
                "cannot grant: \(identifier)'s Info.plist has no \(InfoPlistKey.microphoneUsage.rawValue)")
        }
        do {
            try store.setAuthorization(identifier, service: "microphone", level: granted ? "granted" : "denied")
        } catch {
            throw ProtocolError(.failed, "cannot store the grant: \(error)")
        }
        audio.microphoneGrants[identifier] = granted
        appLogger(identifier).notice("microphone access is now \(granted ? "granted" : "denied")")
        return Done(detail: "\(identifier): microphone \(granted ? "granted" : "denied")")
    }

    // MARK: Remote commands

    /// `REMOTE_COMMAND` from a person: delivered to the media app, which is woken, or
    /// launched into the background, to receive it.
    func remoteCommand(_ request: RemoteCommandRequest) throws(ProtocolError) -> Done {
        let identifier = request.bundle
        var app = try app(identifier)
        guard app.bundle.manifest.backgroundModes.contains(.audio) else {
            throw ProtocolError(
                .failed, "\(identifier) does not declare the audio background mode; remote commands go to media apps")
        }
        let command = request.command.rawValue
        switch app.lifecycle.state {
        case .notRunning:
            // A person asked for it, as when opening it: a force quit does not stand in the way.
            if forceQuit.remove(identifier) != nil { try? store.setForceQuit(identifier, false) }
            audio.pendingCommands[identifier, default: []].append(request)
            try launch(identifier, reason: .audio, foreground: false)
            return Done(detail: "launched \(identifier) into the background for \(command)", state: .inactive)
        case .suspended:
            let actions = app.lifecycle.wake(now: now)
            apps[identifier] = app
            perform(actions, for: identifier)
            appLogger(identifier).info("woken for the remote command \(command)")
        case .inactive, .active, .background:
            break
        }
        guard apps[identifier]?.channel != nil else {
            audio.pendingCommands[identifier, default: []].append(request)
            return Done(detail: "\(command) will reach \(identifier) when it checks in", state: app.lifecycle.state)
        }
        notify(identifier, .remoteCommand(request))
        return Done(detail: "sent \(command) to \(identifier)", state: apps[identifier]?.lifecycle.state)
    }

    /// Sends commands that waited for the app to check in.
    func deliverPendingRemoteCommands(_ identifier: String) {
        for request in audio.pendingCommands.removeValue(forKey: identifier) ?? [] {
            notify(identifier, .remoteCommand(request))
        }
    }

    // MARK: Listing

    /// `bgctl audio`.
    func audioStatus(_ query: AudioQuery) -> AudioStatus {
        let server =
            audioService?.connection
            ?? ServiceConnection(server: "none", state: .disconnected, detail: "audio is not available")
        let streams = audioService?.engine.snapshot(bundle: query.bundle) ?? []
        let concerned = Set(audio.sessions.keys).union(audio.streamOwners.keys).union(audio.nowPlaying.keys)
        let sessions = concerned.filter { query.bundle == nil || $0 == query.bundle }.sorted().map { identifier in
            let session = audio.session(identifier)
            let verdict = audio.verdicts[identifier] ?? AudioFocus.Verdict()
            return AudioSessionInfo(
                bundle: identifier, category: session.category, options: session.options.names,
                active: session.isActive, interrupted: verdict.interrupted, ducked: verdict.ducked,
                nowPlaying: audio.nowPlaying[identifier])
        }
        return AudioStatus(server: server, sessions: sessions, streams: streams)
    }

    /// Underruns and overruns summed per app, for `bgctl ps`.
    func audioCounters() -> [String: (underruns: Int, overruns: Int)] {
        var counters: [String: (underruns: Int, overruns: Int)] = [:]
        for stream in audioService?.engine.snapshot() ?? [] {
            let sum = counters[stream.bundle] ?? (0, 0)
            counters[stream.bundle] = (sum.underruns + stream.underruns, sum.overruns + stream.overruns)
        }
        return counters
    }
}
