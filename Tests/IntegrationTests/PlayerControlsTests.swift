import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import CSndFile
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The player a listener expects (issue 24, item 2): an album of FLAC, Ogg and MP3 files with
/// their tags, its queue, its own volume (heard on the null sink's monitor), repeat and
/// shuffle, from BackgroundPlayer's command line and from MPRIS (playerctl on a private
/// session bus), kept across launches.
@Suite(
    "The player's queue, volume, repeat, shuffle and tags",
    .enabled(if: AudioFixture.available && SessionBus.isAvailable && Locations.hasProgram("playerctl")),
    .enabled(if: geteuid() == 0, "the album is root's and out of the app's uid's reach"),
    .timeLimit(.minutes(5)), .tearsDown)
struct PlayerControlsTests {
    static let seconds = 20
    static let amplitude: Float = 0.5
    /// Below this a sample (or a stretch's level) is silence.
    static let silence = 0.01

    /// Three tagged tracks of one steady tone: FLAC, Ogg Vorbis, and MP3 with the ID3v2 tag a
    /// tagger writes (a second FLAC where this libsndfile cannot encode MP3).
    static func writeAlbum(into album: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        let rate = 44_100
        let tone = (0..<(seconds * rate)).flatMap { frame -> [Float] in
            let value = amplitude * Float(sin(2 * Double.pi * 440 * Double(frame) / Double(rate)))
            return [value, value]
        }
        let artist = "Edvard Grieg"
        let albumName = "Peer Gynt Suite No. 1"
        let tracks: [(String, Int, String)] = [
            ("01 morning.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, "Morning Mood"),
            ("02 ase.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, "Åse's Death"),
            EncodedAudio.canWriteMP3
                ? ("03 anitra.mp3", SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, "Anitra's Dance")
                : ("03 anitra.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, "Anitra's Dance"),
        ]
        return try tracks.map { name, format, title in
            let path = album + "/" + name
            let tags = EncodedAudio.Tags(title: title, artist: artist, album: albumName)
            try EncodedAudio.write(floats: tone, to: path, format: format, sampleRate: rate, channels: 2, tags: tags)
            if name.hasSuffix(".mp3") { try EncodedAudio.retagMP3(path, tags) }
            return path
        }
    }

    @Test(
        "tags in status, bgctl audio and MPRIS; the queue; volume heard at a quarter; repeat all wraps; shuffle keeps the current item first; settings set over MPRIS last across launches"
    )
    func controls() async throws {
        let fixture = try await DesktopPlayerFixture.start(prefix: "player-controls") { bundles, _ in
            try SampleBundles.assemble("BackgroundPlayer", into: bundles)
        }
        let (directory, pulse, daemon) = (fixture.directory, fixture.pulse, fixture.daemon)
        let id = AudioFixture.player
        let album = directory.appending("home/Music/Grieg")
        let tracks = try Self.writeAlbum(into: album)
        let environment = ["BACKGROUNDER_SOCKET": daemon.socketPath, "BACKGROUNDER_FD": ""]
        func player(_ arguments: String...) async throws -> CLIRun {
            try await CLIRun.run(Locations.product("BackgroundPlayer"), arguments, environment: environment)
        }
        func nowPlaying() -> NowPlayingInfo? {
            guard
                case .audioStatus(let status)? = try? daemon.client().request(.audio(AudioQuery(bundle: BundleID(id))))
                    .body
            else { return nil }
            return status.sessions.first?.nowPlaying
        }
        let ctl = fixture.ctl
        let log = {
            (AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(id).log") ?? "")
                .suffix(2000)
        }

        let capture = try await PulseCapture(pulse: pulse, path: directory.appending("capture.raw"))
        let play = try await player("play", album)
        #expect(play.status == 0, "\(play) \(log())")
        // Repeating the queue: after the last track, the first again (checked below).
        let repeatAll = try await player("repeat", "all")
        #expect(repeatAll.status == 0, "\(repeatAll)")
        #expect(await waitUntil(timeout: .seconds(20)) { nowPlaying()?.playing == true }, "\(log())")
        // The monitor has heard a second and a half of the first track at its own level
        // (polled twice a second, reading only the last half second it recorded).
        #expect(
            await waitUntil(timeout: .seconds(30), interval: .milliseconds(500)) {
                let recent = (try? capture.samples(from: max(0, capture.seconds - 0.5))) ?? []
                return recent.contains { abs($0) > Self.silence }
            }, "\(log())")
        let soundAt = capture.seconds
        #expect(
            await waitUntil(timeout: .seconds(30), interval: .milliseconds(500)) { capture.seconds > soundAt + 1.5 })

        // The volume: everything decoded from then on is a quarter as loud.
        let volume = try await player("volume", "0.25")
        let changedAt = capture.seconds
        #expect(volume.status == 0, "\(volume) \(log())")
        #expect(await waitUntil { nowPlaying()?.volume == 0.25 }, "\(String(describing: nowPlaying()))")

        // The tags, as the person reads them and as a script does.
        let status = try await player("status")
        #expect(status.standardOutput.contains("playing: "), "\(status)")
        #expect(status.standardOutput.contains("by Edvard Grieg\nfrom Peer Gynt Suite No. 1\n"), "\(status)")
        #expect(status.standardOutput.contains("volume 0.25, shuffle off, repeat all"), "\(status)")
        let json = try await CLIRun.run(
            Locations.product("bgctl"), ["audio", id, "--json", "--socket", daemon.socketPath])
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(json.standardOutput.utf8))
        guard case .array(let sessions)? = decoded["audio"]?["sessions"] else {
            Issue.record("no sessions: \(json)")
            return
        }
        let session = sessions.first?["nowPlaying"]
        #expect(session?["album"] == .string("Peer Gynt Suite No. 1"), "\(json)")
        #expect(session?["queue"] == .array(tracks.map(JSONValue.string)), "\(json)")
        // The album in its order, the one playing marked.
        let queue = try await player("queue").standardOutput.split(separator: "\n").map(String.init)
        let names = tracks.map { ($0 as NSString).lastPathComponent }
        #expect(
            queue.map { String($0.dropFirst(2)) } == names.enumerated().map { "\($0.offset + 1). \($0.element)" },
            "\(queue)")
        #expect(queue.filter { $0.hasPrefix(">") }.count == 1, "\(queue)")
        #expect(try await ctl("metadata", "album") == "Peer Gynt Suite No. 1")
        #expect(try await ctl("metadata", "artist") == "Edvard Grieg")
        #expect(try await Double(ctl("volume")) == 0.25)

        // The third track's tags (an MP3's ID3v2, in UTF-16) reach the person too.
        #expect(await waitUntil(timeout: .seconds(60)) { nowPlaying()?.index == 2 }, "\(log())")
        #expect(nowPlaying()?.title == "Anitra's Dance")
        // After the last track, the first again.
        #expect(await waitUntil(timeout: .seconds(60)) { nowPlaying()?.index == 0 }, "\(log())")
        let samples = try await capture.stop()

        // What the monitor heard, in half seconds: the first track at its own level, and from
        // a few seconds after the change (what the server had buffered) a quarter of it. Gaps
        // between tracks are left out.
        let rate = Double(PulseCapture.sampleRate)
        let start = Double(try #require(samples.firstIndex { abs($0) > Self.silence })) / rate
        let loud = level(samples, from: start + 0.25, to: start + 1.25)
        let expected = Double(Self.amplitude) / 2.squareRoot()
        #expect(abs(loud - expected) < 0.15 * expected, "the first track at its own level: \(loud)")
        let tail = stride(from: changedAt + 4, to: Double(samples.count) / rate - 0.5, by: 0.5)
            .map { level(samples, from: $0, to: $0 + 0.5) }.filter { $0 > Self.silence }.sorted()
        let quiet = try #require(tail.isEmpty ? nil : tail[tail.count / 2], "nothing heard after the first tracks")
        #expect(abs(quiet / loud - 0.25) < 0.05, "the last track at a quarter: \(quiet) of \(loud)")

        // Shuffled, the current track stays first and plays on; the rest are all there.
        let shuffle = try await player("shuffle", "on")
        #expect(shuffle.status == 0, "\(shuffle)")
        #expect(await waitUntil { nowPlaying()?.shuffleMode == .items })
        let shuffled = try #require(nowPlaying())
        #expect(shuffled.index == 0 && shuffled.queue?.first == shuffled.path, "\(shuffled)")
        #expect(Set(shuffled.queue ?? []) == Set(tracks), "\(shuffled)")

        // From the desktop's media controls: the same settings, through MPRIS.
        _ = try await ctl("loop", "Track")
        _ = try await ctl("shuffle", "Off")
        _ = try await ctl("volume", "0.5")
        #expect(
            await waitUntil(timeout: .seconds(20)) {
                let info = nowPlaying()
                return info?.repeatMode == .one && info?.shuffleMode == .off && info?.volume == 0.5
            }, "\(String(describing: nowPlaying())) \(log())")
        #expect(try await ctl("loop") == "Track")
        #expect(nowPlaying()?.queue == tracks, "back in the album's order")

        // Quit and launched again by a command: the listener's settings are still there.
        let quit = try await CLIRun.run(Locations.product("bgctl"), ["quit", id, "--socket", daemon.socketPath])
        #expect(quit.status == 0, "\(quit)")
        let again = try await player("play", tracks[1])
        #expect(again.status == 0, "\(again) \(log())")
        #expect(
            await waitUntil(timeout: .seconds(20)) {
                let info = nowPlaying()
                return info?.playing == true && info?.title == "Åse's Death"
            }, "\(log())")
        let relaunched = try #require(nowPlaying())
        #expect(relaunched.volume == 0.5 && relaunched.repeatMode == .one, "\(relaunched)")

        // A setting out of range is refused with what it takes, before the app is woken.
        let wrong = try await CLIRun.run(
            Locations.product("bgctl"), ["audio", id, "changeVolume", "3", "--socket", daemon.socketPath])
        #expect(wrong.status != 0 && wrong.standardError.contains("takes a level from 0 to 1"), "\(wrong)")
    }
}
