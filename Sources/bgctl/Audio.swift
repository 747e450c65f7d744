import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Audio: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the sound server, every app's audio session and every stream with its health.",
        discussion: """
            Streams show their state (playing, recording, paused, corked, starved, silent, waiting), what \
            corks them besides the app (interrupted, background, server, requested: the sound server \
            asked for quiet), underruns and overruns, \
            the seconds in the shared ring and the server's latency. --wide adds the sample \
            format, the volume and the buffer attributes the server granted (- where it chose).

            --sink sends an app's playback to another output of the sound server (`pactl list \
            short sinks` names them); the app is told of the route change and plays on.

            Examples:
              bgctl audio
              bgctl audio backgroundplayer --wide
              bgctl audio backgroundplayer --sink bluez_output.00_11_22_33_44_55.1
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp("Only this app. " + appArgumentHelp, valueName: "id"), completion: .bundleIdentifier)
    var id: String?
    @Argument(
        help:
            "A remote command to send the app: play, pause, togglePlayPause, nextTrack, previousTrack, changePlaybackPosition, changeRepeatMode, changeShuffleMode, changeVolume."
    )
    var command: String?
    @Argument(
        help:
            "The command's argument: a path for play, seconds for changePlaybackPosition, off|one|all for changeRepeatMode, off|items for changeShuffleMode, 0 to 1 for changeVolume."
    )
    var argument: String?
    @Flag(help: "Every column, and lines as long as they need.") var wide = false
    @Option(help: ArgumentHelp("Send the app's playback to this sound server output.", valueName: "sink"))
    var sink: String?

    func validate() throws {
        if sink != nil && (id == nil || command != nil) {
            throw ValidationError("--sink needs an app and no command: bgctl audio ID --sink NAME")
        }
    }

    func run() throws {
        if let id, let sink {
            let request = AudioRouteRequest(bundle: try options.resolveBundle(id), sink: sink)
            try report(options.request(.audioRoute(request)), options: options)
            return
        }
        if let id, let command {
            try sendRemoteCommand(command, to: id)
            return
        }
        let bundle = try id.map { try options.resolveBundle($0) }
        guard case .audioStatus(let status) = try options.request(.audio(AudioQuery(bundle: bundle))) else {
            throw Failure.unexpectedReply
        }
        if options.json {
            try options.printJSON("audio", status)
            return
        }
        print("PulseAudio: \(status.server.state.rawValue)\(status.server.detail.map { " (\($0))" } ?? "")")
        let width = wide ? nil : terminalWidth
        if !status.sessions.isEmpty {
            print(table(sessionRows(status.sessions), width: width))
        }
        guard !status.streams.isEmpty else {
            print("no audio streams")
            return
        }
        print(table(streamRows(status.streams), width: width))
    }

    private func sessionRows(_ sessions: [AudioSessionInfo]) -> [[String]] {
        let header =
            wide
            ? ["APP", "CATEGORY", "OPTIONS", "ACTIVE", "INTERRUPTED", "DUCKED", "NOW PLAYING"]
            : ["APP", "CATEGORY", "ACTIVE", "NOW PLAYING"]
        return [header]
            + sessions.map { session in
                let playing = session.nowPlaying.map(Self.describe) ?? "-"
                let active = session.active ? "yes" : "no"
                guard wide else {
                    return [shortName(session.bundle.rawValue), session.category.rawValue, active, playing]
                }
                return [
                    session.bundle.rawValue, session.category.rawValue,
                    session.options.isEmpty ? "-" : session.options.joined(separator: ","),
                    active, session.interrupted ? "yes" : "no", session.ducked ? "yes" : "no", playing,
                ]
            }
    }

    private func streamRows(_ streams: [AudioStreamInfo]) -> [[String]] {
        let header =
            wide
            ? [
                "STREAM", "APP", "DIR", "FORMAT", "STATE", "UNDER", "OVER", "RING s", "LATENCY ms", "VOL",
                "TLENGTH/PREBUF/MINREQ/FRAG",
            ]
            : ["STREAM", "APP", "DIR", "STATE", "UNDER", "OVER", "RING s", "LATENCY ms"]
        return [header]
            + streams.map { stream in
                let corkedBy = stream.corkedBy.map(\.rawValue).joined(separator: ",")
                let state = stream.corkedBy.isEmpty ? stream.state : "\(stream.state) (\(corkedBy))"
                let counts = [
                    String(stream.underruns), String(stream.overruns), String(format: "%.2f", stream.ringSeconds),
                    stream.serverLatency.map { String(format: "%.0f", $0 * 1000) } ?? "-",
                ]
                guard wide else {
                    return [String(stream.stream), shortName(stream.bundle.rawValue), stream.direction.rawValue, state]
                        + counts
                }
                return [
                    String(stream.stream), stream.bundle.rawValue, stream.direction.rawValue, stream.format.description,
                    state,
                ] + counts + [String(format: "%.2f", stream.volume), stream.attributes.map(Self.describe) ?? "-"]
            }
    }

    /// `playing Morning – Edvard Grieg (Peer Gynt) at 12 s`: the item, who and what it is
    /// from where the file says.
    static func describe(_ info: NowPlayingInfo) -> String {
        let by = info.artist.map { " – \($0)" } ?? ""
        let from = info.album.map { " (\($0))" } ?? ""
        return
            "\(info.playing ? "playing" : "paused") \(info.title)\(by)\(from) at \(String(format: "%.0f", info.elapsed)) s"
    }

    /// `352800/88200/88200/-`: each attribute the server granted, `-` for one left to it
    /// (PulseAudio's `(uint32_t) -1`).
    static func describe(_ attributes: AudioBufferAttributes) -> String {
        [attributes.tlength, attributes.prebuf, attributes.minreq, attributes.fragsize]
            .map { $0 == UInt32.max ? "-" : String($0) }.joined(separator: "/")
    }

    /// `bgctl audio ID COMMAND [ARGUMENT]`: sends the command as the app's media keys would and
    /// waits for the app's answer (`MPRemoteCommandHandlerStatus`); exits 1 unless it is
    /// `success`.
    private func sendRemoteCommand(_ name: String, to id: String) throws {
        guard let remote = RemoteCommand(rawValue: name) else {
            let known = RemoteCommand.allCases.map(\.rawValue)
            let hint =
                NearMiss.nearest(name, among: known).map { "did you mean \($0)?" }
                ?? "known: \(known.joined(separator: ", "))"
            throw Failure.usage("'\(name)' is not a remote command; \(hint)")
        }
        let bundle = try options.resolveBundle(id)
        // The daemon holds the reply up to 10 s for the app's answer: wait longer than that.
        let reply = try options.request(
            .remoteCommand(RemoteCommandRequest(bundle: bundle, command: remote, argument: argument)),
            timeout: .seconds(20))
        guard case .done(let done) = reply else { throw Failure.unexpectedReply }
        if let status = done.handlerStatus, status != .success {
            throw Failure(
                code: status.rawValue,
                message: "\(bundle) did not carry out \(name): \(status.rawValue) (\(done.detail))"
                    + (done.handlerReason.map { ": \($0.escapedForTerminal)" } ?? ""), exitStatus: 1
            )
        }
        if options.json { try options.printJSON("result", done) } else { print(done.detail.escapedForTerminal) }
    }
}
