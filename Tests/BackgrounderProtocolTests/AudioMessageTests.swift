import BackgrounderCore
import Foundation
import Testing

@testable import BackgrounderProtocol

@Suite("Audio messages", .timeLimit(.minutes(5)))
struct AudioMessageTests {
    let codec = LineCodec()

    @Test("audio requests and notices survive a round trip through one line")
    func roundTrips() throws {
        let requests: [ClientMessage] = [
            ClientMessage(
                id: .number(1),
                .audioSession(AudioSessionRequest(category: .playback, options: [.duckOthers], active: true))),
            ClientMessage(
                id: .number(2),
                .openAudioStream(AudioStreamRequest(direction: .record, format: .cd, bufferSeconds: 0.5))),
            ClientMessage(.audioStreamControl(AudioStreamControl(stream: 3, action: .drain))),
            ClientMessage(.nowPlaying(NowPlayingInfo(title: "Song", elapsed: 1.5, playing: true, index: 0, count: 2))),
            ClientMessage(.remoteCommand(RemoteCommandRequest(bundle: "a.b", command: .play, argument: "/x.flac"))),
            ClientMessage(
                .remoteCommand(RemoteCommandRequest(bundle: "a.b", command: .changeRepeatMode, argument: "all"))),
            ClientMessage(.audio(AudioQuery(bundle: nil))),
        ]
        for request in requests {
            let data = try codec.encode(request)
            #expect(try codec.decode(ClientMessage.self, from: data.dropLast()) == request)
        }
        let notices: [DaemonMessage] = [
            DaemonMessage(.audioInterruption(AudioInterruption(type: .ended, shouldResume: true, reason: .serverLost))),
            DaemonMessage(
                id: .number(2),
                .audioStream(AudioStreamGrant(stream: 1, token: "t", socket: "/s", capacity: 8, lowWater: 4))),
            DaemonMessage(.remoteCommand(RemoteCommandRequest(bundle: "a.b", command: .nextTrack))),
        ]
        for notice in notices {
            let data = try codec.encode(notice)
            #expect(try codec.decode(DaemonMessage.self, from: data.dropLast()) == notice)
        }
    }

    @Test("the wire names are the documented ones")
    func wireNames() throws {
        let text = String(
            decoding: try codec.encode(
                ClientMessage(.openAudioStream(AudioStreamRequest(direction: .playback, format: .cd)))),
            as: UTF8.self)
        #expect(text.contains(#""class":"AUDIO_STREAM_OPEN""#))
        #expect(text.contains(#""sampleFormat":"s16le""#))
        #expect(ClientMessage.classNames.contains("AUDIO_STREAM_CONTROL"))
    }

    @Test("cork reasons keep the spelling bgctl audio and scripts read")
    func corkReasonSpelling() throws {
        let stream = AudioStreamInfo(
            stream: 1, bundle: "a.b", direction: .playback, format: .cd, state: "corked",
            corkedBy: [.background, .interrupted, .server], underruns: 0, overruns: 0, ringSeconds: 0,
            serverLatency: nil, volume: 1, bytes: 0, attributes: nil)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(stream), as: UTF8.self)
        #expect(text.contains(#""corkedBy":["background","interrupted","server"]"#), "\(text)")
        #expect(try JSONDecoder().decode(AudioStreamInfo.self, from: Data(text.utf8)) == stream)
        #expect(
            AudioCorkReason.allCases.map(\.rawValue) == ["app", "interrupted", "background", "server", "requested"])
    }

    @Test("a bad category, direction or action is refused naming it, not guessed")
    func badValues() {
        let lines = [
            #"{"class":"AUDIO_SESSION","category":"loud","options":[],"active":true}"#,
            #"{"class":"AUDIO_STREAM_OPEN","direction":"sideways","format":{"sampleFormat":"s16le","sampleRate":44100,"channels":2}}"#,
            #"{"class":"AUDIO_STREAM_OPEN","direction":"playback","format":{"sampleFormat":"s24le","sampleRate":44100,"channels":2}}"#,
            #"{"class":"AUDIO_STREAM_CONTROL","stream":1,"action":"explode"}"#,
            #"{"class":"AUDIO_STREAM_CONTROL","action":"start"}"#,
        ]
        for line in lines {
            #expect(throws: (any Error).self, "\(line)") {
                try codec.decode(ClientMessage.self, from: Array(line.utf8))
            }
        }
    }

    @Test("a remote command's argument is checked: what each command takes, and why another is refused")
    func remoteCommandArguments() {
        #expect(RemoteCommand.nextTrack.problem(with: nil) == nil)
        #expect(RemoteCommand.changePlaybackPosition.problem(with: "12.5") == nil)
        #expect(RemoteCommand.changeRepeatMode.problem(with: "one") == nil)
        #expect(RemoteCommand.changeShuffleMode.problem(with: "items") == nil)
        #expect(RemoteCommand.changeVolume.problem(with: "0") == nil)
        #expect(RemoteCommand.changeVolume.problem(with: "1") == nil)
        #expect(RemoteCommand.changeVolume.problem(with: "1.5") == "takes a level from 0 to 1, not '1.5'")
        #expect(RemoteCommand.changeVolume.problem(with: "nan") != nil)
        #expect(RemoteCommand.changeRepeatMode.problem(with: "track") == "takes one of off, one, all, not 'track'")
        #expect(RemoteCommand.changeShuffleMode.problem(with: nil) == "takes one of off, items, not nothing")
        #expect(RemoteCommand.changePlaybackPosition.problem(with: "-3") != nil)
    }

    @Test("now-playing information moves on while playing, never past the item's end; paused, it stands")
    func advancing() {
        let playing = NowPlayingInfo(title: "Song", elapsed: 10, duration: 30, playing: true)
        #expect(playing.advanced(by: 5).elapsed == 15)
        #expect(playing.advanced(by: 500).elapsed == 30)
        #expect(playing.advanced(by: -5).elapsed == 10)
        var paused = playing
        paused.playing = false
        #expect(paused.advanced(by: 5).elapsed == 10)
    }

    @Test("the queue a line carries: from two items before the current one, as many paths as fit the budget")
    func queueWindow() throws {
        var info = NowPlayingInfo(title: "Song", elapsed: 0, playing: true, index: 5, count: 4000)
        let items = (0..<4000).map { String(format: "/home/me/Music/library/%04d some song title.flac", $0) }
        info.describeQueue(items)
        let queue = try #require(info.queue)
        #expect(info.queueStart == 3)
        #expect(queue.first == items[3])
        #expect(queue.count < items.count - 3 && queue.count > 100)
        #expect(queue.reduce(0) { $0 + $1.utf8.count + 3 } <= NowPlayingInfo.maximumQueueBytes)
        // The whole message still fits a line.
        #expect(try codec.encode(ClientMessage(.nowPlaying(info))).count < WireLimits.maximumLineLength)

        var first = NowPlayingInfo(title: "Song", elapsed: 0, playing: true, index: 0, count: 3)
        first.describeQueue(["/a", "/b", "/c"])
        #expect(first.queue == ["/a", "/b", "/c"] && first.queueStart == 0)
    }
}
