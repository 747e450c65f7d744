import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import CPulse
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension RealTimeSuites {
    /// Recording, and the sound server dying under a playing app.
    @Suite(
        "Recording and server restarts",
        .enabled(if: AudioFixture.available, "PulseAudio is not installed (scripts/setup.sh installs it)"),
        .timeLimit(.minutes(5)), .tearsDown
    )
    struct AudioServerTests {
        static let recorder = "org.backgrounder.tests.recorder"

        @Test(
            "recording in the background from the monitor holds the tone without gaps; without a grant, a clear error")
        func recordsInTheBackground() async throws {
            try await AudioFixture.run(prefix: "audio-record") {
                try TestAppBundles.make(
                    "Recorder", behavior: "record", modes: ["audio"], microphoneUsage: true, into: $0)
            } test: { fixture in
                // The default source is the null sink's monitor, so the app records what plays.
                let pactl = try ChildProcess(
                    "/usr/bin/env", ["pactl", "set-default-source", "\(PulseAudioServer.sinkName).monitor"],
                    environment: fixture.pulse.clientEnvironment, logPath: fixture.directory.appending("pactl.log"))
                #expect(
                    await pactl.waitForExit(timeout: .seconds(20)) && pactl.terminationStatus == 0, "\(pactl.output)")

                _ = try fixture.request(.open(OpenApp(bundle: BundleID(Self.recorder))))
                #expect(await waitUntil { fixture.appLog(Self.recorder).contains("audio failed") })
                #expect(
                    fixture.appLog(Self.recorder).contains("microphone access is not granted"),
                    "log: \(fixture.appLog(Self.recorder))")

                guard
                    case .done = try fixture.request(
                        .authorize(Authorize(bundle: BundleID(Self.recorder), grant: .microphone(.granted))))
                else {
                    Issue.record("the grant was refused")
                    return
                }
                _ = try fixture.request(.quit(AppReference(bundle: BundleID(Self.recorder))))
                #expect(await waitUntil { (try? fixture.app(Self.recorder).state) == .notRunning })
                _ = try fixture.request(.open(OpenApp(bundle: BundleID(Self.recorder))))
                #expect(await waitUntil { (try? fixture.stream(Self.recorder))??.state == "recording" })
                _ = try fixture.request(.home)
                try await Task.sleep(for: .seconds(2))
                #expect(try fixture.app(Self.recorder).state == .background)

                try PulseAudioHarnessTests.playTone(server: fixture.pulse.server, frequency: 440, seconds: 4)
                let app = try fixture.app(Self.recorder)
                #expect(app.state == .background && app.assertions.contains("audio"), "\(app)")

                // What was recorded reaches the file through the server's fragments, the ring and
                // the app's writes: on a loaded machine that takes a while, so wait for 4 s of it
                // after the first sound rather than a fixed second.
                let path = fixture.daemon.stateDirectory + "/data/\(Self.recorder)/recording.raw"
                let rate = 44_100
                var samples: [Double] = []
                let recorded = await waitUntil(timeout: .seconds(15), interval: .milliseconds(250)) {
                    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return false }
                    samples = ToneAnalysis.firstChannel(ofS16LE: [UInt8](data), channels: 1)
                    guard let first = samples.firstIndex(where: { abs($0) > 0.05 }) else { return false }
                    return samples.count >= first + 4 * rate
                }
                #expect(recorded, "\(fixture.appLog(Self.recorder))")
                // The 4 s tone is in the recording, whole: every 10 ms from its first sound to 4 s on is loud.
                let first = try #require(samples.firstIndex { abs($0) > 0.05 }, "no tone recorded")
                let window = rate / 100
                let quiet = stride(from: first, to: first + 39 * rate / 10, by: window).filter { start in
                    start + window > samples.count || ToneAnalysis.rms(samples[start..<start + window]) < 0.1
                }
                #expect(quiet.isEmpty, "gaps at \(quiet.prefix(5).map { Double($0 - first) / Double(rate) }) s")
                let middle = Array(samples[(first + rate)..<(first + 2 * rate)])
                #expect(ToneAnalysis.toneRatio(middle, frequency: 440, sampleRate: Double(rate)) > 0.9)
            }
        }

        @Test("PulseAudio killed and restarted mid-playback: the daemon reconnects, playback resumes, the app is told")
        func serverRestart() async throws {
            try await AudioFixture.run(prefix: "audio-restart") {
                try SampleBundles.assemble("BackgroundPlayer", into: $0)
            } test: { fixture in
                let (_, path) = try fixture.signal(seconds: 40)
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying())
                try await Task.sleep(for: .seconds(3))

                await fixture.pulse.kill()
                #expect(await waitUntil { (try? fixture.daemon.status().pulseAudio.state) != .connected })
                #expect(
                    await waitUntil {
                        fixture.appLog(AudioFixture.player).contains("interrupted: the sound server went away")
                    })
                try await Task.sleep(for: .seconds(1))
                let restarted = try await PulseAudioServer(directory: fixture.directory)
                atTeardown { await restarted.stop() }
                let capture = try await PulseCapture(pulse: restarted, path: fixture.directory.appending("after.raw"))

                #expect(await waitUntil { (try? fixture.daemon.status().pulseAudio.state) == .connected })
                #expect(try await fixture.waitUntilPlaying())
                #expect(
                    await waitUntil {
                        fixture.appLog(AudioFixture.player).contains("interruption ended (the sound server went away)")
                    })
                try await Task.sleep(for: .seconds(4))
                let samples = try await capture.stop()
                let report = ToneBlocks.analyze(samples, sampleRate: PulseCapture.sampleRate)
                #expect(report.labels.count >= 8, "\(report)")
                // The new server's stream starts clipped by the monitor and the capture stops mid-block:
                // everything in between is seamless.
                #expect(
                    report.problems(from: 0.3, to: report.playedDuration - 0.3).isEmpty, "after the restart: \(report)")
                #expect(fixture.daemon.isRunning)
                // Stopped here as well, before the fixture removes the directory it runs in.
                await restarted.stop()
            }
        }
    }
}

extension RealTimeSuites {
    /// iOS's arbitration between apps, with real streams.
    @Suite(
        "Audio sessions between apps",
        .enabled(if: AudioFixture.available, "PulseAudio is not installed (scripts/setup.sh installs it)"),
        .timeLimit(.minutes(5)), .tearsDown
    )
    struct AudioFocusIntegrationTests {
        @Test("a foreground non-mixable session interrupts the background player; ending it resumes the player")
        func foregroundInterrupts() async throws {
            try await AudioFixture.run(prefix: "audio-focus") { bundles in
                try SampleBundles.assemble("BackgroundPlayer", into: bundles)
                try TestAppBundles.make("Tone", behavior: "tone", into: bundles)
            } test: { fixture in
                let tone = "org.backgrounder.tests.tone"
                let (_, path) = try fixture.signal(seconds: 40)
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying())

                _ = try fixture.request(.open(OpenApp(bundle: BundleID(tone))))
                #expect(try await fixture.waitUntilPlaying(tone))
                #expect(await waitUntil { (try? fixture.stream(AudioFixture.player))??.corkedBy == [.interrupted] })
                #expect(
                    await waitUntil { fixture.appLog(AudioFixture.player).contains("interrupted: another app's audio") }
                )
                // Interrupted, it loses the assertion and is suspended like any other app.
                #expect(await waitUntil { (try? fixture.app(AudioFixture.player).state) == .suspended })

                _ = try fixture.request(.quit(AppReference(bundle: BundleID(tone))))
                #expect(
                    await waitUntil {
                        fixture.appLog(AudioFixture.player).contains(
                            "interruption ended (another app's audio), resume: true")
                    },
                    "log: \(fixture.appLog(AudioFixture.player))")
                #expect(try await fixture.waitUntilPlaying())
                let app = try fixture.app(AudioFixture.player)
                #expect(app.state == .background && app.assertions.contains("audio"), "\(app)")
            }
        }

        @Test("duckOthers lowers the background player's volume while it is active, without interrupting it")
        func ducking() async throws {
            try await AudioFixture.run(prefix: "audio-duck") { bundles in
                try SampleBundles.assemble("BackgroundPlayer", into: bundles)
                try TestAppBundles.make("Navigator", behavior: "tone-duck", into: bundles)
            } test: { fixture in
                let navigator = "org.backgrounder.tests.navigator"
                let (_, path) = try fixture.signal(seconds: 40)
                _ = try await fixture.command(.play, path)
                #expect(try await fixture.waitUntilPlaying())
                #expect(try fixture.stream(AudioFixture.player)?.volume == 1)

                _ = try fixture.request(.open(OpenApp(bundle: BundleID(navigator))))
                #expect(try await fixture.waitUntilPlaying(navigator))
                let ducked = try #require(try fixture.stream(AudioFixture.player))
                #expect(ducked.volume == 0.25 && ducked.state == "playing", "\(ducked)")
                let session = try #require(try fixture.audio(AudioFixture.player).sessions.first)
                #expect(session.ducked && !session.interrupted)

                _ = try fixture.request(.quit(AppReference(bundle: BundleID(navigator))))
                #expect(await waitUntil { (try? fixture.stream(AudioFixture.player))??.volume == 1 })
            }
        }
    }
}
