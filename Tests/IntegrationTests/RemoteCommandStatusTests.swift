import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension RealTimeSuites {
    /// A remote command comes back with what the app made of it (`MPRemoteCommandHandlerStatus`):
    /// the real BackgroundPlayer, run as a person runs it, against a real daemon and PulseAudio.
    @Suite(
        "Remote command status",
        .enabled(if: AudioFixture.available, "PulseAudio is not installed (scripts/setup.sh installs it)"),
        .timeLimit(.minutes(5)), .tearsDown
    )
    struct RemoteCommandStatusTests {
        @Test("previous with nothing playing, then next on the last of two tracks, fail with the app's answer and 69")
        func nextOnTheLastTrack() async throws {
            try await AudioFixture.run(prefix: "remote-status") {
                try SampleBundles.assemble("BackgroundPlayer", into: $0)
            } test: { fixture in
                // Two 30 s tones in the player's data directory (its sandbox reads only that).
                let music = fixture.daemon.stateDirectory + "/data/" + AudioFixture.player + "/music"
                try WAVFile.writeTwoTones(into: music, amplitude: 8_000)
                let environment = ["BACKGROUNDER_SOCKET": fixture.daemon.socketPath, "BACKGROUNDER_FD": ""]
                func player(_ arguments: String...) async throws -> (status: Int32?, output: String) {
                    let process = try ChildProcess(
                        Locations.product("BackgroundPlayer"), arguments, environment: environment,
                        logPath: fixture.directory.appending("player-\(UUID().uuidString.prefix(6)).log"))
                    #expect(await process.waitForExit(timeout: .seconds(60)))
                    return (process.terminationStatus, process.output)
                }
                let log = { "app: \(fixture.appLog(AudioFixture.player).suffix(1500))" }

                // Not running: the daemon launches the app for the command; it has nothing to go back to.
                let previous = try await player("previous")
                #expect(previous.status == 69, "\(previous.output) \(log())")
                #expect(
                    previous.output
                        == "BackgroundPlayer: previous: nothing is playing or paused; start with BackgroundPlayer play PATH "
                        + "(the app answered noActionableNowPlayingItem)\n", "\(log())")

                let play = try await player("play", music)
                #expect(play.status == 0, "\(play.output) \(log())")
                #expect(play.output == "2 items from \(music)\nplay: done\n")
                let next = try await player("next")
                #expect(next.status == 0, "\(next.output) \(log())")
                #expect(next.output == "next: done\n")
                let last = try await player("next")
                #expect(last.status == 69, "\(last.output) \(log())")
                #expect(
                    last.output
                        == "BackgroundPlayer: next: there is no next track: the last one is playing "
                        + "(the app answered noSuchContent)\n")

                // bgctl prints the daemon's account and the status, and exits 1.
                let bgctl = try ChildProcess(
                    Locations.product("bgctl"),
                    ["audio", "--socket", fixture.daemon.socketPath, AudioFixture.player, "nextTrack"],
                    logPath: fixture.directory.appending("bgctl.log"))
                #expect(await bgctl.waitForExit(timeout: .seconds(60)))
                #expect(bgctl.terminationStatus == 1, "\(bgctl.output)")
                #expect(
                    bgctl.output.contains(
                        "bgctl: \(AudioFixture.player) did not carry out nextTrack: noSuchContent"), "\(bgctl.output)")
                #expect(bgctl.output.contains("it answered noSuchContent"), "\(bgctl.output)")

                // The refused next changed nothing: the second track plays on.
                #expect(
                    await waitUntil(timeout: .seconds(20)) {
                        (try? fixture.audio(AudioFixture.player))?.sessions.first?.nowPlaying?.title == "2-high.wav"
                    }, "\(log())")
                #expect(try fixture.audio(AudioFixture.player).sessions.first?.nowPlaying?.playing == true)
            }
        }
    }
}
