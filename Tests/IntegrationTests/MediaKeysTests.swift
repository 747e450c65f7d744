import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The issue's acceptance for MPRIS: `playerctl`, on a private session bus, lists
/// BackgroundPlayer's player, shows its metadata, and `play-pause` and `next` reach the app
/// while it is suspended: it is woken, obeys, and is heard on the null sink's monitor.
@Suite(
    "Media keys over MPRIS",
    .enabled(if: AudioFixture.available && SessionBus.isAvailable && Locations.hasProgram("playerctl")),
    .timeLimit(.minutes(5)), .tearsDown)
struct MediaKeysTests {
    static let playerName = DesktopPlayerFixture.playerName

    @Test("playerctl lists the player, reads its metadata, and play-pause and next wake a suspended player")
    func playerctlReachesSuspendedPlayer() async throws {
        let fixture = try await DesktopPlayerFixture.start(prefix: "mpris") { bundles, _ in
            try SampleBundles.assemble("BackgroundPlayer", into: bundles)
        }
        let (directory, bus, pulse, daemon) = (fixture.directory, fixture.bus, fixture.pulse, fixture.daemon)
        let id = AudioFixture.player
        func player() throws -> AppInfo {
            guard case .apps(let list) = try daemon.client().request(.ps).body,
                let app = list.apps.first(where: { $0.id.rawValue == id })
            else { throw HarnessError("no player in ps") }
            return app
        }
        let ctl = fixture.ctl

        // Two tones of different pitch, so the capture tells which track plays.
        let music = daemon.stateDirectory + "/data/" + id + "/music"
        // Three minutes each: on a loaded machine the first 30-second track once ended before
        // its title was read.
        try WAVFile.writeTwoTones(into: music, amplitude: 16_000, seconds: 180)

        _ = try await daemon.request(
            .remoteCommand(RemoteCommandRequest(bundle: BundleID(id), command: .play, argument: music)))
        #expect(
            await waitUntil(timeout: .seconds(20)) {
                (try? await playerctl("-l", bus: bus).output.contains(Self.playerName)) == true
            }, "the player is listed: \(daemon.log.suffix(2000))")
        #expect(await waitUntil(timeout: .seconds(20)) { (try? await ctl("status")) == "Playing" })
        let title = try await ctl("metadata", "title")
        #expect(title == "1-low.wav")
        #expect(try await ctl("metadata", "mpris:length") == "180000000")
        #expect(try await ctl("metadata", "xesam:url") == "file://\(music)/1-low.wav")

        // Paused from the media keys, the player loses its audio assertion and is suspended.
        _ = try daemon.client().request(.home)
        _ = try await ctl("play-pause")
        #expect(await waitUntil(timeout: .seconds(20)) { (try? await ctl("status")) == "Paused" })
        #expect(try await waitUntil(timeout: .seconds(30)) { try player().state == .suspended })
        // Properties come from the daemon: reading them does not wake the app.
        #expect(try await ctl("metadata", "title") == "1-low.wav")
        #expect(try player().state == .suspended)

        let capture = try await PulseCapture(pulse: pulse, path: directory.appending("capture.raw"))
        let pressedAt = capture.seconds
        _ = try await ctl("play-pause")
        #expect(try await waitUntil(timeout: .seconds(20)) { try player().state == .background })
        #expect(await waitUntil(timeout: .seconds(20)) { (try? await ctl("status")) == "Playing" })
        try await Task.sleep(for: .seconds(3))

        // Next, while it plays in the background.
        let nextAt = capture.seconds
        _ = try await ctl("next")
        #expect(await waitUntil(timeout: .seconds(20)) { (try? await ctl("metadata", "title")) == "2-high.wav" })
        try await Task.sleep(for: .seconds(3))
        let samples = try await capture.stop()
        #expect(level(samples, from: pressedAt + 1, to: nextAt) > 0.1, "play-pause made it audible")
        #expect(level(samples, from: nextAt + 1.5, to: nextAt + 2.5) > 0.1, "the next track is audible")
        #expect(
            dominantFrequency(samples, from: nextAt + 1.5, seconds: 1) > 600,
            "the high tone of the second track plays after next")
        #expect(try player().state == .background, "playing in the background, not suspended")

        // Bad calls get the bus's errors, named, and change nothing.
        let name = "org.mpris.MediaPlayer2." + Self.playerName
        let path = "/org/mpris/MediaPlayer2"
        for (method, signature, arguments, expected) in [
            ("org.mpris.MediaPlayer2.Player.OpenUri", "s", ["http://example.test/x.mp3"], "needs a file:// URI"),
            ("org.mpris.MediaPlayer2.Player.Seek", "s", ["soon"], "needs a position in microseconds"),
            ("org.mpris.MediaPlayer2.Quit", "", [], "CanQuit is false"),
            ("org.mpris.MediaPlayer2.Player.Frobnicate", "", [], "Frobnicate"),
        ] {
            do {
                _ = try await busCall(
                    address: bus.address, destination: name, path: path, method: method, signature: signature,
                    arguments: arguments)
                Issue.record("\(method) was accepted")
            } catch let error as BusCallError {
                #expect(error.output.contains(expected), "\(method): \(error.output)")
            }
        }
        // SetPosition for another track is ignored, as MPRIS says.
        _ = try await busCall(
            address: bus.address, destination: name, path: path,
            method: "org.mpris.MediaPlayer2.Player.SetPosition", signature: "ox",
            arguments: ["/org/backgrounder/track/7", "1000000"])
        #expect(try await ctl("metadata", "title") == "2-high.wav")
        #expect(try await ctl("status") == "Playing")
        #expect(daemon.isRunning)
    }

    /// The frequency with the most zero crossings' worth in a second of mono samples.
    private func dominantFrequency(_ samples: [Double], from start: Double, seconds: Double) -> Double {
        let rate = Double(PulseCapture.sampleRate)
        let first = max(0, Int(start * rate))
        let last = min(samples.count, first + Int(seconds * rate))
        guard last > first + 1 else { return 0 }
        var crossings = 0
        for index in (first + 1)..<last where (samples[index - 1] < 0) != (samples[index] < 0) {
            crossings += 1
        }
        return Double(crossings) / 2 / (Double(last - first) / rate)
    }
}
