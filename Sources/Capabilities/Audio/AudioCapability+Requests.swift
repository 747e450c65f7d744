package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Logging

/// What apps and people ask of the audio capability: sessions, streams, now playing, the
/// microphone grant, remote commands and `bgctl audio`.
extension AudioCapability {
    // MARK: Sessions

    /// `AUDIO_SESSION` from an app.
    package func setSession(_ identifier: BundleID, _ request: AudioSessionRequest, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        let options: AudioSessionOptions
        do {
            options = try AudioSessionOptions(names: request.options)
        } catch {
            throw ProtocolError(.badRequest, error.description)
        }
        let previous = book.session(identifier)
        let session = AudioSessionConfiguration(category: request.category, options: options, isActive: request.active)
        book.sessions[identifier] = session
        if session.isActive && (!previous.isActive || previous.category != session.category) {
            book.activatedAt[identifier] = apps.now
        }
        applyFocus(in: apps)
        let verdict = book.verdicts[identifier] ?? AudioFocus.Verdict()
        var detail =
            "audio session \(session.category.rawValue)\(options.names.isEmpty ? "" : " " + options.names.joined(separator: ","))"
        detail += session.isActive ? " active" : " inactive"
        if verdict.interrupted { detail += "; interrupted by another app's session" }
        return Done(detail: detail, state: apps.state(of: identifier))
    }

    // MARK: Streams

    /// `AUDIO_STREAM_OPEN` from an app.
    package func openStream(_ identifier: BundleID, _ request: AudioStreamRequest, in apps: any AppCore)
        throws(ProtocolError) -> AudioStreamGrant
    {
        let manifest = try apps.bundle(of: identifier).manifest
        do {
            try request.format.validate()
        } catch {
            throw ProtocolError(.badRequest, "format.\(error.field): \(error.reason)")
        }
        let session = book.session(identifier)
        switch request.direction {
        case .playback where !session.category.plays:
            throw ProtocolError(
                .invalidState, "the \(session.category.rawValue) category does not play; set playback first")
        case .record where !session.category.records:
            throw ProtocolError(
                .invalidState,
                "the \(session.category.rawValue) category does not record; set record or playAndRecord first")
        case .record:
            if let missing = microphoneRefusal(identifier, manifest) {
                // Nothing decided yet: the person is asked, as iOS asks at the first recording.
                if manifest.usageDescriptions.microphone != nil, book.microphoneGrants[identifier] == nil {
                    apps.askPerson(
                        identifier, for: .microphone, asks: "granted", usage: manifest.usageDescriptions.microphone)
                }
                throw ProtocolError(.notAuthorized, missing)
            }
        default:
            break
        }
        let open = book.streamOwners[identifier]?.count ?? 0
        guard open < Self.maximumStreamsPerApp else {
            throw ProtocolError(
                .limitReached,
                "\(identifier) already has \(open) audio streams, the most an app may have; close one first")
        }
        let plan = AudioBufferPlan(
            format: request.format, playback: request.direction == .playback, requestedSeconds: request.bufferSeconds)
        let verdict = book.verdicts[identifier] ?? AudioFocus.Verdict()
        var corkedBy: Set<AudioCorkReason> = []
        if verdict.interrupted { corkedBy.insert(.interrupted) }
        if verdict.silencedInBackground { corkedBy.insert(.background) }
        let opened: (stream: Int, token: String)
        do {
            opened = try service.engine.open(
                bundle: identifier, direction: request.direction, format: request.format, plan: plan,
                corkedBy: corkedBy, volume: verdict.ducked ? AudioFocus.duckedVolume : 1,
                silenceLimit: apps.policy.backgroundAudioSilenceLimit(for: manifest),
                properties: Self.streamProperties(identifier, manifest, book.session(identifier)))
        } catch {
            throw ProtocolError(.unavailable, "cannot open an audio stream: \(error)")
        }
        book.streamOwners[identifier, default: []].insert(opened.stream)
        apps.appLogger(identifier).info(
            "opened \(request.direction.rawValue) stream \(opened.stream): \(request.format), ring \(plan.ringCapacity) bytes"
        )
        applyFocus(in: apps)
        return AudioStreamGrant(
            stream: opened.stream, token: opened.token, socket: service.socket.path, capacity: plan.ringCapacity,
            lowWater: plan.lowWater)
    }

    /// What the sound server is told of an app's stream: its role (from the session's
    /// category, so a mixer or a policy module tells a player from a call) and the app.
    static func streamProperties(
        _ identifier: BundleID, _ manifest: AppManifest, _ session: AudioSessionConfiguration
    ) -> [String: String] {
        [
            "media.role": session.category.mediaRole,
            "application.name": manifest.name,
            "application.id": identifier.rawValue,
        ]
    }

    /// `AUDIO_ROUTE`: a person sends the app's playback to another output.
    package func route(_ request: AudioRouteRequest, in apps: any AppCore) async throws(ProtocolError) -> Done {
        guard apps.manifest(of: request.bundle) != nil else {
            throw ProtocolError(.notFound, "no loaded bundle has the identifier '\(request.bundle)'")
        }
        let moved: Int
        do {
            moved = try await service.engine.move(request.bundle, to: request.sink)
        } catch let error as AudioEngineError {
            throw error.protocolError
        } catch {
            throw ProtocolError(.failed, "\(error)")
        }
        apps.appLogger(request.bundle).info("a person sent its sound to \(request.sink)")
        return Done(detail: "\(request.bundle): \(moved) stream(s) now play to \(request.sink)")
    }

    /// Why an app may not record, or `nil` when it may.
    private func microphoneRefusal(_ identifier: BundleID, _ manifest: AppManifest) -> String? {
        guard manifest.usageDescriptions.microphone != nil else {
            return "\(identifier)'s Info.plist has no \(InfoPlistKey.microphoneUsage.rawValue), which recording needs"
        }
        guard book.microphoneGrants[identifier] == true else {
            return
                "microphone access is not granted; a person grants it with `bgctl answer` (bgctl prompts lists the question) or `bgctl authorize \(identifier) microphone`"
        }
        return nil
    }

    /// `AUDIO_STREAM_CONTROL` from an app.
    package func controlStream(_ identifier: BundleID, _ control: AudioStreamControl, in apps: any AppCore) async throws
        -> Done
    {
        do {
            return try await carryOut(control, for: identifier, in: apps)
        } catch let error as AudioEngineError {
            throw error.protocolError
        }
    }

    private func carryOut(_ control: AudioStreamControl, for identifier: BundleID, in apps: any AppCore)
        async throws -> Done
    {
        let engine = service.engine
        switch control.action {
        case .start:
            // As AVAudioPlayer does, starting a stream activates the session if the app did not.
            if !book.session(identifier).isActive {
                book.sessions[identifier, default: AudioSessionConfiguration()].isActive = true
                book.activatedAt[identifier] = apps.now
            }
            _ = try engine.setStarted(control.stream, of: identifier, true)
            applyFocus(in: apps)
        case .pause:
            _ = try engine.setStarted(control.stream, of: identifier, false)
            updateAssertion(identifier, in: apps)
        case .flush:
            try engine.flush(control.stream, of: identifier)
        case .drain:
            try await engine.drain(control.stream, of: identifier)
        case .close:
            try engine.close(control.stream, of: identifier)
            book.streamOwners[identifier]?.remove(control.stream)
            updateAssertion(identifier, in: apps)
        }
        return Done(detail: "stream \(control.stream): \(control.action.rawValue)", state: apps.state(of: identifier))
    }

    /// `NOW_PLAYING` from an app.
    package func setNowPlaying(_ identifier: BundleID, _ info: NowPlayingInfo, in apps: any AppCore) -> Done {
        book.nowPlaying[identifier] = info
        book.nowPlayingAt[identifier] = apps.now
        // Media keys and the shell's media panel reach the apps that can play in the background.
        if let manifest = apps.manifest(of: identifier), manifest.backgroundModes.contains(.audio) {
            players.update(identifier, identity: manifest.name, info: info)
        }
        return Done(detail: "now playing: \(info.title)")
    }

    // MARK: Grants

    /// `bgctl authorize ID microphone [granted|denied]`.
    package func authorize(_ request: Authorize, in apps: any AppCore) throws(ProtocolError) -> Done {
        let identifier = request.bundle
        let manifest = try apps.bundle(of: identifier).manifest
        let granted = request.grant == .microphone(.granted)
        if granted && manifest.usageDescriptions.microphone == nil {
            throw ProtocolError(
                .notAuthorized,
                "cannot grant: \(identifier)'s Info.plist has no \(InfoPlistKey.microphoneUsage.rawValue)")
        }
        do {
            try store.setAuthorization(identifier, request.grant)
        } catch {
            throw ProtocolError(.failed, "cannot store the grant: \(error)")
        }
        book.microphoneGrants[identifier] = granted
        apps.appLogger(identifier).notice("microphone access is now \(granted ? "granted" : "denied")")
        return Done(detail: "\(identifier): microphone \(granted ? "granted" : "denied")")
    }

    // MARK: Remote commands

    /// `REMOTE_COMMAND` from a person: delivered to the media app, which is woken, or
    /// launched into the background, to receive it. The reply waits for the app's answer
    /// (``answer(_:_:in:)``), at most ``remoteCommandAnswerSeconds``, and the app holds the
    /// `audio` assertion while it owes it (``updateAssertion(_:in:)``).
    package func remoteCommand(_ request: RemoteCommandRequest, in apps: any AppCore) throws(ProtocolError)
        -> RemoteCommandAnswer
    {
        let identifier = request.bundle
        let manifest = try apps.bundle(of: identifier).manifest
        let state = apps.state(of: identifier)
        guard manifest.backgroundModes.contains(.audio) else {
            throw ProtocolError(
                .invalidState,
                "\(identifier) does not declare the audio background mode; remote commands go to media apps")
        }
        let command = request.command.rawValue
        if let problem = request.command.problem(with: request.argument) {
            throw ProtocolError(.badRequest, "REMOTE_COMMAND: argument: \(command) \(problem)")
        }
        var request = request
        let woken = state == .suspended
        switch state {
        case .notRunning:
            // A person asked for it, as when opening it: a force quit does not stand in the way.
            apps.clearForceQuit(identifier)
            let answer = holdForAnswer(
                &request, delivery: "launched \(identifier) into the background for \(command)", in: apps)
            do {
                try queueRemoteCommand(request, in: apps)
                try apps.launchInBackground(identifier, reason: .audio)
            } catch {
                // Not launched: nothing will check in for it.
                release(request, in: apps)
                throw error
            }
            updateAssertion(identifier, in: apps)
            return answer
        case .suspended:
            apps.wakeIfSuspended(identifier, because: "the remote command \(command)")
        case .inactive, .active, .background:
            break
        }
        guard apps.canHear(identifier) else {
            let answer = holdForAnswer(&request, delivery: "\(command) waited for \(identifier) to check in", in: apps)
            do {
                try queueRemoteCommand(request, in: apps)
            } catch {
                release(request, in: apps)
                throw error
            }
            updateAssertion(identifier, in: apps)
            return answer
        }
        let delivery = woken ? "woke \(identifier) and sent \(command)" : "sent \(command) to \(identifier)"
        let answer = holdForAnswer(&request, delivery: delivery, in: apps)
        apps.notify(identifier, .remoteCommand(request))
        updateAssertion(identifier, in: apps)
        return answer
    }

    /// Keeps a command for an app that has not checked in, up to
    /// ``AppLimits/maximumPendingRemoteCommands``: an app that never checks in must not make
    /// the daemon hold an endless queue.
    private func queueRemoteCommand(_ request: RemoteCommandRequest, in apps: any AppCore)
        throws(ProtocolError)
    {
        let identifier = request.bundle
        let queued = book.pendingCommands[identifier]?.count ?? 0
        guard queued < AppLimits.maximumPendingRemoteCommands else {
            apps.appLogger(identifier).warning(
                "remote command \(request.command.rawValue) refused: \(queued) already wait")
            throw ProtocolError(
                .limitReached,
                "\(queued) remote commands already wait for \(identifier) to check in, the most that may; try again once it has"
            )
        }
        book.pendingCommands[identifier, default: []].append(request)
    }

    // MARK: Listing

    /// `bgctl audio`.
    package func status(_ query: AudioQuery, in apps: any AppCore) -> AudioStatus {
        let streams = service.engine.snapshot(bundle: query.bundle)
        let concerned = Set(book.sessions.keys).union(book.streamOwners.keys).union(book.nowPlaying.keys)
        let sessions = concerned.filter { query.bundle == nil || $0 == query.bundle }.sorted().map { identifier in
            let session = book.session(identifier)
            let verdict = book.verdicts[identifier] ?? AudioFocus.Verdict()
            return AudioSessionInfo(
                bundle: identifier, category: session.category, options: session.options.names,
                active: session.isActive, interrupted: verdict.interrupted, ducked: verdict.ducked,
                nowPlaying: nowPlaying(identifier, in: apps))
        }
        return AudioStatus(server: service.connection, sessions: sessions, streams: streams)
    }

    /// What an app plays as of now: the position moves on from what it published while it
    /// plays and runs (a suspended app's clock stands still).
    private func nowPlaying(_ identifier: BundleID, in apps: any AppCore) -> NowPlayingInfo? {
        guard let info = book.nowPlaying[identifier], let at = book.nowPlayingAt[identifier] else { return nil }
        switch apps.state(of: identifier) {
        case .inactive, .active, .background: return info.advanced(by: (apps.now - at).seconds)
        case .suspended, .notRunning: return info
        }
    }
}
