import BackgrounderAppCore
import BackgrounderAudio
import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem
import BackgrounderTestSupport
import Logging
import Testing

/// The audio capability's rules against an embedded core: the engine's main loop and the
/// audio socket run, but no sound server is ever connected (streams wait for one, as they do
/// while PulseAudio restarts), and the session bus is never reached; each test runs in
/// milliseconds.
@Suite("The audio capability on an embedded core")
@AppCoreActor
final class AudioCapabilityTests {
    let directory: TemporaryDirectory
    let store: StateStore
    let core = EmbeddedAppCore()
    let service: AudioService
    let players: MediaPlayers
    let audio: AudioCapability

    static let player: BundleID = "org.example.player"
    static let podcasts: BundleID = "org.example.podcasts"
    static let game: BundleID = "org.example.game"
    static let memos: BundleID = "org.example.memos"

    init() throws {
        directory = try TemporaryDirectory(prefix: "audio-unit")
        store = try StateStore(directory: directory.appending("state"), synchronous: .normal)
        var logger = Logger(label: "audio-unit")
        logger.logLevel = .critical
        service = try AudioService(
            server: nil, socketPath: directory.appending("audio.sock"), identify: { _ in .none },
            sharedFiles: SharedFiles([:], appDirectories: []), logger: logger)
        // Never run: the MPRIS players it is handed are queued for a bus that never comes.
        players = MediaPlayers(bus: try DesktopBus(environment: [:], identify: { _ in .none }, logger: logger))
        audio = AudioCapability(service: service, store: store, players: players)
        core.capabilities = [audio]
        core.add(Self.manifest(Self.player, modes: [.audio]), state: .background)
        core.add(Self.manifest(Self.podcasts, modes: [.audio]), state: .active)
        core.add(Self.manifest(Self.game, modes: []), state: .background)
    }

    deinit {
        service.socket.stop()
        directory.remove()
    }

    static func manifest(_ identifier: BundleID, modes: Set<BackgroundMode>, microphone: String? = nil) -> AppManifest {
        AppManifest(
            bundleIdentifier: identifier, name: identifier.rawValue, executable: "App", backgroundModes: modes,
            usageDescriptions: UsageDescriptions(microphone: microphone))
    }

    func session(
        _ identifier: BundleID, _ category: AudioSessionCategory, _ options: AudioSessionOptions = [],
        active: Bool = true
    ) throws -> Done {
        try audio.setSession(
            identifier, AudioSessionRequest(category: category, options: options, active: active), in: core)
    }

    /// The questions left for a person.
    func questions() -> [EmbeddedAppCore.Ask] {
        core.asks.filter { if case .askPerson = $0 { true } else { false } }
    }

    func heard(_ identifier: BundleID) -> [AudioInterruption] {
        core.notices(to: identifier).compactMap { if case .audioInterruption(let notice) = $0 { notice } else { nil } }
    }

    @Test(
        "a remote command goes only to a media app, its argument checked first; a suspended one is woken and only it answers"
    )
    func remoteCommandWakesAndIsAnswered() async throws {
        let refused = #expect(throws: ProtocolError.self) {
            try audio.remoteCommand(RemoteCommandRequest(bundle: Self.game, command: .play), in: core)
        }
        #expect(refused?.code == .invalidState)
        #expect(refused?.message.contains("does not declare the audio background mode") == true)
        core.move(Self.player, to: .suspended)
        let seek = RemoteCommandRequest(bundle: Self.player, command: .changePlaybackPosition, argument: "-3")
        let badArgument = #expect(throws: ProtocolError.self) { try audio.remoteCommand(seek, in: core) }
        #expect(
            badArgument?.message
                == "REMOTE_COMMAND: argument: changePlaybackPosition takes a position in seconds, 0 or more, not '-3'")
        #expect(core.asks.isEmpty)

        let answer = try audio.remoteCommand(RemoteCommandRequest(bundle: Self.player, command: .nextTrack), in: core)
        // Woken, and kept awake until it answers: its grace must not freeze it mid-answer.
        #expect(
            core.asks == [
                .wake(Self.player, because: "the remote command nextTrack"),
                .assertion(.audio, held: true, Self.player),
            ])
        #expect(
            core.notices(to: Self.player) == [
                .remoteCommand(RemoteCommandRequest(bundle: Self.player, command: .nextTrack, ticket: 1))
            ])

        // Another app cannot settle it, even knowing the ticket.
        let stranger = #expect(throws: ProtocolError.self) {
            try audio.answer(Self.game, RemoteCommandStatusReport(ticket: 1, status: .success), in: core)
        }
        #expect(stranger?.code == .notFound)
        #expect(core.assertions(of: Self.player) == [.audio])
        _ = try audio.answer(
            Self.player, RemoteCommandStatusReport(ticket: 1, status: .noSuchContent, reason: "the last track"),
            in: core)
        // Answered, and playing nothing: the ordinary rules apply again.
        #expect(core.assertions(of: Self.player).isEmpty)
        let reply = try await answer.value()
        #expect(reply.detail == "woke \(Self.player) and sent nextTrack; it answered noSuchContent")
        #expect(reply.handlerStatus == .noSuchContent)
        #expect(reply.handlerReason == "the last track")
    }

    @Test(
        "a remote command launches a player that is not running and keeps it running until it answers; commands wait for its check-in, as many as the queue holds, and fail when it exits unanswered"
    )
    func remoteCommandsWaitForCheckIn() async throws {
        core.apps[Self.player]?.state = .notRunning
        core.apps[Self.player]?.forceQuit = true
        var answers = [try audio.remoteCommand(RemoteCommandRequest(bundle: Self.player, command: .play), in: core)]
        // The assertion covers the launch too: a launch slower than the grace period must not
        // be suspended at its check-in with the command unheard.
        #expect(
            core.asks == [
                .clearForceQuit(Self.player), .launch(Self.player, .audio), .assertion(.audio, held: true, Self.player),
            ])
        for _ in 1..<AppLimits.maximumPendingRemoteCommands {
            answers.append(
                try audio.remoteCommand(RemoteCommandRequest(bundle: Self.player, command: .nextTrack), in: core))
        }
        let full = #expect(throws: ProtocolError.self) {
            try audio.remoteCommand(RemoteCommandRequest(bundle: Self.player, command: .pause), in: core)
        }
        #expect(full?.code == .limitReached)
        #expect(core.notices(to: Self.player).isEmpty)
        #expect(core.asks.count { if case .launch = $0 { true } else { false } } == 1)

        core.checkIn(Self.player)
        let sent = core.notices(to: Self.player).compactMap { body -> RemoteCommandRequest? in
            if case .remoteCommand(let request) = body { request } else { nil }
        }
        #expect(sent.map(\.ticket) == (1...AppLimits.maximumPendingRemoteCommands).map { Optional($0) })
        #expect(sent.first?.command == .play)
        // One answer of many owed keeps it running for the rest.
        _ = try audio.answer(Self.player, RemoteCommandStatusReport(ticket: 2, status: .success), in: core)
        #expect(core.assertions(of: Self.player) == [.audio])
        #expect(try await answers[1].value().handlerStatus == .success)

        core.exit(Self.player)
        let abandoned = await #expect(throws: ProtocolError.self) { try await answers[0].value() }
        #expect(abandoned?.code == .unavailable)
        #expect(abandoned?.message == "\(Self.player) exited before it answered play")
    }

    @Test(
        "an unanswered remote command fails after 10 s on the core's timer, soonest first; the assertion goes and a command still queued is dropped"
    )
    func remoteCommandsTimeOutOnTheCoreTimer() async throws {
        let sent = try audio.remoteCommand(RemoteCommandRequest(bundle: Self.player, command: .pause), in: core)
        #expect(core.deadline(of: audio) == .seconds(10))
        core.advance(by: .seconds(4))
        core.apps[Self.podcasts]?.state = .notRunning
        let queued = try audio.remoteCommand(RemoteCommandRequest(bundle: Self.podcasts, command: .play), in: core)
        // The soonest wait sets the timer; the later one waits its turn.
        #expect(core.deadline(of: audio) == .seconds(10))
        #expect(core.assertions(of: Self.player) == [.audio])

        core.advance(by: .seconds(6))
        let late = await #expect(throws: ProtocolError.self) { try await sent.value() }
        #expect(late?.code == .unavailable)
        #expect(late?.message == "\(Self.player) did not answer pause within 10 s (sent pause to \(Self.player))")
        #expect(core.assertions(of: Self.player).isEmpty)
        #expect(core.deadline(of: audio) == .seconds(14))
        // Too late to answer now: the ticket is gone.
        #expect(throws: ProtocolError.self) {
            try audio.answer(Self.player, RemoteCommandStatusReport(ticket: 1, status: .success), in: core)
        }

        core.advance(by: .seconds(4))
        let unheard = await #expect(throws: ProtocolError.self) { try await queued.value() }
        #expect(unheard?.message.hasPrefix("\(Self.podcasts) did not answer play within 10 s (launched") == true)
        #expect(core.deadline(of: audio) == nil)
        // The person was told it failed: the launch's check-in does not carry it out later.
        core.checkIn(Self.podcasts)
        #expect(!core.notices(to: Self.podcasts).contains { if case .remoteCommand = $0 { true } else { false } })
    }

    @Test(
        "a non-mixable session in front interrupts a background player's, which is woken to resume when it ends; a ducking one only lowers it"
    )
    func sessionsInterruptAndDuck() throws {
        var unknown = AudioSessionRequest(category: .playback, options: [], active: true)
        unknown.options = ["loud"]
        let error = #expect(throws: ProtocolError.self) { try audio.setSession(Self.player, unknown, in: core) }
        #expect(error?.message == "options: unknown option 'loud' (known: mixWithOthers, duckOthers)")

        #expect(try session(Self.player, .playback).detail == "audio session playback active")
        core.move(Self.player, to: .suspended)
        core.foreground = Self.podcasts
        _ = try session(Self.podcasts, .playback)
        #expect(heard(Self.player) == [AudioInterruption(type: .began, reason: .session)])
        #expect(heard(Self.podcasts).isEmpty)
        #expect(!core.asks.contains { if case .wake = $0 { true } else { false } })

        _ = try session(Self.podcasts, .playback, active: false)
        #expect(
            heard(Self.player) == [
                AudioInterruption(type: .began, reason: .session),
                AudioInterruption(type: .ended, shouldResume: true, reason: .session),
            ])
        #expect(core.asks.contains(.wake(Self.player, because: "its audio session")))
        #expect(core.state(of: Self.player) == .background)

        _ = try session(Self.podcasts, .playback, [.duckOthers])
        #expect(heard(Self.player).count == 2)
        let player = try #require(audio.status(AudioQuery(bundle: Self.player), in: core).sessions.first)
        #expect(player.ducked && !player.interrupted && player.active)
    }

    @Test(
        "a started stream of a background category holds the audio assertion, only with the audio mode; pausing releases it and no other app may touch it"
    )
    func streamHoldsTheAssertion() async throws {
        _ = try session(Self.player, .playback)
        let grant = try audio.openStream(Self.player, AudioStreamRequest(direction: .playback, format: .cd), in: core)
        #expect(grant.socket == service.socket.path)
        #expect(core.assertions(of: Self.player).isEmpty)

        _ = try await audio.controlStream(
            Self.player, AudioStreamControl(stream: grant.stream, action: .start), in: core)
        #expect(core.assertions(of: Self.player) == [.audio])
        let stranger = await #expect(throws: ProtocolError.self) {
            try await audio.controlStream(Self.game, AudioStreamControl(stream: grant.stream, action: .pause), in: core)
        }
        #expect(stranger?.code == .notFound)
        #expect(core.assertions(of: Self.player) == [.audio])
        _ = try await audio.controlStream(
            Self.player, AudioStreamControl(stream: grant.stream, action: .pause), in: core)
        #expect(core.assertions(of: Self.player).isEmpty)

        // Without the mode a playing stream holds nothing, even in front where nothing silences it.
        core.move(Self.game, to: .active)
        _ = try session(Self.game, .playback)
        let game = try audio.openStream(Self.game, AudioStreamRequest(direction: .playback, format: .cd), in: core)
        _ = try await audio.controlStream(Self.game, AudioStreamControl(stream: game.stream, action: .start), in: core)
        #expect(core.assertions(of: Self.game).isEmpty)
        #expect(!core.asks.contains(.assertion(.audio, held: true, Self.game)))
    }

    @Test(
        "recording needs the Info.plist's microphone string and a person's grant, asked for once; the store keeps the grant, not the session"
    )
    func recordingNeedsAGrant() throws {
        core.add(Self.manifest(Self.memos, modes: [.audio]), state: .active)
        let record = AudioStreamRequest(
            direction: .record, format: AudioFormat(sampleFormat: .s16le, sampleRate: 16_000, channels: 1))
        _ = try session(Self.memos, .record)
        let playback = #expect(throws: ProtocolError.self) {
            try audio.openStream(Self.memos, AudioStreamRequest(direction: .playback, format: .cd), in: core)
        }
        #expect(playback?.message == "the record category does not play; set playback first")
        let noUsage = #expect(throws: ProtocolError.self) { try audio.openStream(Self.memos, record, in: core) }
        #expect(noUsage?.code == .notAuthorized)
        #expect(
            noUsage?.message == "\(Self.memos)'s Info.plist has no NSMicrophoneUsageDescription, which recording needs")
        let grant = Authorize(bundle: Self.memos, grant: .microphone(.granted))
        #expect(throws: ProtocolError.self) { try audio.authorize(grant, in: core) }
        #expect(questions().isEmpty)

        core.add(Self.manifest(Self.memos, modes: [.audio], microphone: "Records your memos."), state: .active)
        let undecided = #expect(throws: ProtocolError.self) { try audio.openStream(Self.memos, record, in: core) }
        #expect(undecided?.code == .notAuthorized)
        #expect(questions() == [.askPerson(Self.memos, .microphone, asks: "granted")])
        #expect(try audio.authorize(grant, in: core).detail == "\(Self.memos): microphone granted")

        // The daemon again: the grant was stored, the session was not.
        let again = AudioCapability(service: service, store: store, players: players)
        let forgotten = #expect(throws: ProtocolError.self) { try again.openStream(Self.memos, record, in: core) }
        #expect(forgotten?.message == "the soloAmbient category does not record; set record or playAndRecord first")
        _ = try again.setSession(
            Self.memos, AudioSessionRequest(category: .record, options: [], active: true), in: core)
        let stream = try again.openStream(Self.memos, record, in: core)
        #expect(
            again.status(AudioQuery(bundle: Self.memos), in: core).streams.map(\.stream) == [stream.stream])
        #expect(questions().count == 1)
    }
}

extension AudioCapabilityTests {
    @Test(
        "bgctl status counts the active audio sessions, not the ones set inactive, and no stream before one is opened")
    func status() throws {
        #expect(audio.status(in: core).counts["activeSessions"] == 0)
        _ = try session(Self.player, .playback)
        _ = try session(Self.podcasts, .playback)
        _ = try session(Self.podcasts, .playback, active: false)
        let status = audio.status(in: core)
        #expect(status.name == "audio")
        #expect(
            status.counts == [
                "streams": 0, "playing": 0, "recording": 0, "paused": 0, "corkedOrWaiting": 0, "activeSessions": 1,
            ])
        #expect(
            status.summary
                == "0 stream(s) of 0 app(s): 0 playing, 0 recording, 0 paused, 0 corked or waiting; 1 active audio session(s)"
        )
    }
}
