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
        #expect(AudioCorkReason.allCases.map(\.rawValue) == ["app", "interrupted", "background", "server"])
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
}
