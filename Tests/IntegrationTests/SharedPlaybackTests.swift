import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension RealTimeSuites {
    /// The person's own music, where it lies: `BackgroundPlayer play ~/Music/album` as the
    /// README has it, with the sandboxed player reading the album through the daemon. `parec`
    /// on the null sink's monitor proves what played.
    @Suite(
        "The person's music, played where it lies",
        .enabled(if: AudioFixture.available, "PulseAudio is not installed (scripts/setup.sh installs it)"),
        .enabled(if: geteuid() == 0, "the album is root's and out of the app's uid's reach"),
        .timeLimit(.minutes(5)), .tearsDown
    )
    struct SharedPlaybackTests {
        @Test(
            "BackgroundPlayer play DIR plays an album outside the app's directory in full; a link the app planted and a file never shared fail with the reason"
        )
        func playsThePersonsAlbum() async throws {
            try await AudioFixture.run(prefix: "shared-play") {
                try SampleBundles.assemble("BackgroundPlayer", into: $0)
            } test: { fixture in
                // The person's album, in a home only the person may enter.
                let home = fixture.directory.appending("home")
                let album = home + "/Music/album"
                try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
                chmod(home, 0o700)
                let blocks = ToneBlocks(count: 8 * 4, sampleRate: 44_100)
                let song = album + "/01 signal.wav"
                try WAVFile.write(samples: blocks.samples(channels: 2), sampleRate: 44_100, channels: 2, to: song)
                let environment = ["BACKGROUNDER_SOCKET": fixture.daemon.socketPath, "BACKGROUNDER_FD": ""]
                func player(_ arguments: String...) async throws -> CLIRun {
                    try await CLIRun.run(Locations.product("BackgroundPlayer"), arguments, environment: environment)
                }
                let log = { "app: \(fixture.appLog(AudioFixture.player).suffix(1500))" }

                let capture = try await fixture.capture("capture.raw")
                let play = try await player("play", album)
                #expect(play.status == 0, "\(play) \(log())")
                #expect(play.standardOutput == "1 item from \(album)\nplay: done\n", "\(play)")
                #expect(try await fixture.waitUntilPlaying(), "\(log())")
                // Launched for the command, it plays in the background to the end, then is suspended.
                #expect(try fixture.app(AudioFixture.player).state == .background)
                #expect(await fixture.waitUntilSuspended(AudioFixture.player, timeout: .seconds(120)), "\(log())")
                let samples = try await capture.stop()
                let report = ToneBlocks.analyze(samples, sampleRate: PulseCapture.sampleRate)
                #expect(report.labels == blocks.expectedLabels, "\(report)")

                // A link the app might have planted in its own directory, named by the person:
                // the daemon does not follow it, and the command line says so.
                let data = fixture.daemon.stateDirectory + "/data/" + AudioFixture.player
                try FileManager.default.createSymbolicLink(atPath: data + "/planted.wav", withDestinationPath: song)
                let planted = try await player("play", data + "/planted.wav")
                #expect(planted.status == 69, "\(planted)")
                #expect(
                    planted.standardError.contains("planted.wav is a symbolic link in an app's directory"), "\(planted)"
                )

                // Taken back, then asked to play it anyway: the app's own reason comes back.
                let bgctl = Locations.product("bgctl")
                let unshare = try await CLIRun.run(
                    bgctl, ["unshare", AudioFixture.player, "--socket", fixture.daemon.socketPath])
                #expect(unshare.status == 0, "\(unshare)")
                let refused = try await CLIRun.run(
                    bgctl, ["audio", AudioFixture.player, "play", song, "--socket", fixture.daemon.socketPath])
                #expect(refused.status == 1, "\(refused)")
                #expect(refused.standardError.contains("noSuchContent"), "\(refused)")
                #expect(refused.standardError.contains("not shared with \(AudioFixture.player)"), "\(refused) \(log())")
            }
        }

        @Test(
            "under a person's daemon and sound server, BackgroundPlayer play DIR run by the person plays the album in full, sandboxed"
        )
        func playsUnderAPersonsDaemon() async throws {
            let uid: UInt32 = 54_332
            let directory = try TemporaryDirectory(prefix: "shared-play-person")
            atTeardown { directory.remove() }
            chown(directory.path, uid, uid)
            let pulse = try await PulseAudioServer(directory: directory, runAs: uid)
            atTeardown { await pulse.stop() }
            let bundles = directory.appending("bundles")
            try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
            try SampleBundles.assemble("BackgroundPlayer", into: bundles)
            let daemon = try await PersonsDaemon.start(
                as: uid, directory: directory, bundles: bundles, pulseServer: pulse.server,
                extraArguments: LifecycleTests.fastPolicy)
            #expect(await waitUntil { (try? daemon.status().pulseAudio.state) == .connected }, "\(daemon.log)")

            // The person's album, in their home, theirs alone.
            let home = directory.appending("home")
            let album = home + "/Music/album"
            try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
            let blocks = ToneBlocks(count: 8 * 4, sampleRate: 44_100)
            let song = album + "/01 signal.wav"
            try WAVFile.write(samples: blocks.samples(channels: 2), sampleRate: 44_100, channels: 2, to: song)
            for path in [home, home + "/Music", album, song] { chown(path, uid, uid) }
            chmod(home, 0o700)

            let capture = try await PulseCapture(pulse: pulse, path: directory.appending("capture.raw"))
            // Run by the person, as the person.
            let play = try await CLIRun.run(
                "/usr/bin/setpriv",
                [
                    "--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups", Locations.product("BackgroundPlayer"),
                    "play", album,
                ],
                environment: ["BACKGROUNDER_SOCKET": daemon.socketPath, "BACKGROUNDER_FD": ""])
            let log = {
                (try? String(
                    contentsOfFile: daemon.stateDirectory + "/logs/\(AudioFixture.player).log", encoding: .utf8))
                    ?? ""
            }
            #expect(play.status == 0, "\(play) \(log())")
            #expect(play.standardOutput == "1 item from \(album)\nplay: done\n", "\(play)")
            func state() -> ApplicationState? {
                guard case .apps(let list)? = try? daemon.client().request(.ps).body else { return nil }
                return list.apps.first { $0.id.rawValue == AudioFixture.player }?.state
            }
            // It plays to the end, then is suspended.
            #expect(await waitUntil(timeout: .seconds(120)) { state() == .suspended }, "\(log())")
            let samples = try await capture.stop()
            let report = ToneBlocks.analyze(samples, sampleRate: PulseCapture.sampleRate)
            #expect(report.labels == blocks.expectedLabels, "\(report) \(log())")
        }
    }
}
