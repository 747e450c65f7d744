import BackgrounderCore
import Testing

@Suite("Audio focus: iOS's session arbitration", .timeLimit(.minutes(5)))
struct AudioFocusTests {
    private func app(
        _ identifier: BundleID, _ category: AudioSessionCategory, _ options: AudioSessionOptions = [],
        active: Bool = true, mode: Bool = true, foreground: Bool = false, at seconds: Int = 0
    ) -> AudioFocus.Participant {
        AudioFocus.Participant(
            identifier: identifier,
            session: AudioSessionConfiguration(category: category, options: options, isActive: active),
            hasAudioMode: mode,
            isForeground: foreground,
            activatedAt: .seconds(seconds)
        )
    }

    @Test("a foreground non-mixable session interrupts a background player; mixable ones play on")
    func foregroundInterrupts() {
        let verdicts = AudioFocus.decide([
            app("player", .playback, at: 1),
            app("mixer", .playback, .mixWithOthers, at: 2),
            app("game", .soloAmbient, foreground: true, at: 3),
        ])
        #expect(verdicts["player"]?.interrupted == true)
        #expect(verdicts["player"]?.isCorked == true)
        #expect(verdicts["mixer"]?.interrupted == false)
        #expect(verdicts["game"]?.interrupted == false)
    }

    @Test("the foreground app wins even when a background session activated later")
    func foregroundBeatsLaterActivation() {
        let verdicts = AudioFocus.decide([
            app("caller", .playAndRecord, foreground: true, at: 1),
            app("player", .playback, at: 9),
        ])
        #expect(verdicts["player"]?.interrupted == true)
        #expect(verdicts["caller"]?.interrupted == false)
    }

    @Test("between background players the last to activate wins")
    func lastActivationWins() {
        let verdicts = AudioFocus.decide([app("first", .playback, at: 1), app("second", .playback, at: 2)])
        #expect(verdicts["first"]?.interrupted == true)
        #expect(verdicts["second"]?.interrupted == false)
    }

    @Test("an inactive session interrupts nobody and is not interrupted")
    func inactiveSessions() {
        let verdicts = AudioFocus.decide([
            app("player", .playback, at: 1),
            app("idle", .playback, active: false, foreground: true, at: 5),
        ])
        #expect(verdicts["player"]?.interrupted == false)
        #expect(verdicts["idle"]?.interrupted == false)
    }

    @Test("a background app without the mode, or with an ambient category, is silenced; in front it is not")
    func silencedInBackground() {
        let verdicts = AudioFocus.decide([
            app("nomode", .playback, mode: false, at: 1),
            app("ambient", .ambient, at: 2),
            app("front", .playback, mode: false, foreground: true, at: 3),
        ])
        #expect(verdicts["nomode"]?.silencedInBackground == true)
        #expect(verdicts["ambient"]?.silencedInBackground == true)
        #expect(verdicts["front"]?.silencedInBackground == false)
        // A silenced app cannot take focus from anyone: "front" owns it and interrupts nobody
        // that may be heard, and "nomode" is both silenced and (being non-mixable) interrupted.
        #expect(verdicts["nomode"]?.interrupted == true)
    }

    @Test("duckOthers lowers every other app, mixes, and stops ducking when inactive")
    func ducking() {
        let ducking = AudioFocus.decide([
            app("player", .playback, at: 1),
            app("navigation", .playback, .duckOthers, foreground: true, at: 2),
        ])
        #expect(ducking["player"]?.ducked == true)
        #expect(ducking["player"]?.interrupted == false)
        #expect(ducking["navigation"]?.ducked == false)
        let done = AudioFocus.decide([
            app("player", .playback, at: 1),
            app("navigation", .playback, .duckOthers, active: false, foreground: true, at: 2),
        ])
        #expect(done["player"]?.ducked == false)
    }

    @Test("options round-trip through their names; an unknown one is named")
    func optionNames() throws {
        let options = try AudioSessionOptions(names: ["duckOthers", "mixWithOthers"])
        #expect(options.names == ["mixWithOthers", "duckOthers"])
        #expect(throws: AudioSessionError("options: unknown option 'loud' (known: mixWithOthers, duckOthers)")) {
            try AudioSessionOptions(names: ["loud"])
        }
    }

    @Test("formats: rates 8–192 kHz and 1–2 channels; errors name the field")
    func formats() throws {
        try AudioFormat.cd.validate()
        #expect(AudioFormat.cd.bytesPerSecond == 176_400)
        #expect(throws: AudioFormatError.self) {
            try AudioFormat(sampleFormat: .s16le, sampleRate: 7999, channels: 2).validate()
        }
        do {
            try AudioFormat(sampleFormat: .float32le, sampleRate: 48_000, channels: 6).validate()
            Issue.record("six channels accepted")
        } catch {
            #expect(error.field == "channels")
        }
        #expect(
            AudioFormat(sampleFormat: .float32le, sampleRate: 192_000, channels: 1).bytes(forSeconds: 0.5) == 384_000)
    }
}

@Suite("Audio buffer plan", .timeLimit(.minutes(5)))
struct AudioBufferPlanTests {
    @Test("playback: a 2 s ring, a 2 s server target, requests and prebuffer of a quarter, woken at half")
    func playbackDefaults() {
        let plan = AudioBufferPlan(format: .cd, playback: true, requestedSeconds: nil)
        #expect(plan.ringCapacity == 352_800)
        #expect(plan.targetLength == 352_800)
        #expect(plan.minimumRequest == 88_200)
        #expect(plan.prebuffer == 88_200)
        #expect(plan.lowWater == 176_400)
        #expect(plan.fragmentSize == nil)
    }

    @Test("a deep ring keeps the server target at 2 s; a shallow one shrinks it; whole frames always")
    func clamps() {
        let deep = AudioBufferPlan(format: .cd, playback: true, requestedSeconds: 60)
        #expect(deep.ringCapacity == AudioFormat.cd.bytes(forSeconds: 10))
        #expect(deep.targetLength == AudioFormat.cd.bytes(forSeconds: 2))
        let odd = AudioFormat(sampleFormat: .float32le, sampleRate: 44_100, channels: 1)
        let shallow = AudioBufferPlan(format: odd, playback: true, requestedSeconds: 0.001)
        #expect(shallow.ringCapacity == odd.bytes(forSeconds: 0.05))
        for value in [shallow.ringCapacity, shallow.targetLength!, shallow.minimumRequest!, shallow.lowWater] {
            #expect(value % odd.bytesPerFrame == 0)
        }
        let nonsense = AudioBufferPlan(format: .cd, playback: true, requestedSeconds: .nan)
        #expect(nonsense.ringCapacity == AudioFormat.cd.bytes(forSeconds: 2))
    }

    @Test("record: fragments of at most 200 ms, and the app is woken once one is waiting")
    func record() {
        let plan = AudioBufferPlan(format: .cd, playback: false, requestedSeconds: 2)
        #expect(plan.fragmentSize == AudioFormat.cd.bytes(forSeconds: 0.2))
        #expect(plan.lowWater == plan.fragmentSize)
        #expect(plan.targetLength == nil)
    }
}
