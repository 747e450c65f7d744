import ArgumentParser
import BackgrounderProtocol
import Foundation

struct Audio: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the sound server, every app's audio session and every stream with its health.",
        discussion: """
            Streams show their state (playing, recording, paused, corked, starved, waiting), what
            corks them besides the app (interrupted, background, server), underruns and overruns,
            the seconds in the shared ring, the server's latency and the buffer attributes granted.
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: "Only this app's bundle identifier.", completion: .bundleIdentifier) var id: String?
    @Argument(
        help:
            "A remote command to send the app: play, pause, togglePlayPause, nextTrack, previousTrack, changePlaybackPosition."
    )
    var command: String?
    @Argument(help: "The command's argument: a path for play, seconds for changePlaybackPosition.") var argument:
        String?

    func run() throws {
        if let id, let command {
            try sendRemoteCommand(command, to: id)
            return
        }
        guard case .audioStatus(let status) = try options.request(.audio(AudioQuery(bundle: id))) else {
            throw ValidationError("unexpected reply")
        }
        if options.json {
            try options.printJSON(status)
            return
        }
        print("PulseAudio: \(status.server.state.rawValue)\(status.server.detail.map { " (\($0))" } ?? "")")
        if !status.sessions.isEmpty {
            var rows = [["APP", "CATEGORY", "OPTIONS", "ACTIVE", "INTERRUPTED", "DUCKED", "NOW PLAYING"]]
            for session in status.sessions {
                let playing = session.nowPlaying.map {
                    "\($0.playing ? "▶" : "⏸") \($0.title) \(String(format: "%.0f", $0.elapsed)) s"
                }
                rows.append([
                    session.bundle, session.category.rawValue,
                    session.options.isEmpty ? "-" : session.options.joined(separator: ","),
                    session.active ? "yes" : "no", session.interrupted ? "yes" : "no", session.ducked ? "yes" : "no",
                    playing ?? "-",
                ])
            }
            print(table(rows))
        }
        guard !status.streams.isEmpty else {
            print("no audio streams")
            return
        }
        var rows = [
            [
                "STREAM", "APP", "DIR", "FORMAT", "STATE", "UNDER", "OVER", "RING s", "LATENCY ms", "VOL",
                "TLENGTH/PREBUF/MINREQ/FRAG",
            ]
        ]
        for stream in status.streams {
            let corkedBy = stream.corkedBy.map(\.rawValue).joined(separator: ",")
            let state = stream.corkedBy.isEmpty ? stream.state : "\(stream.state) (\(corkedBy))"
            let attributes = stream.attributes.map { "\($0.tlength)/\($0.prebuf)/\($0.minreq)/\($0.fragsize)" }
            rows.append([
                String(stream.stream), stream.bundle, stream.direction.rawValue, stream.format.description, state,
                String(stream.underruns), String(stream.overruns), String(format: "%.2f", stream.ringSeconds),
                stream.serverLatency.map { String(format: "%.0f", $0 * 1000) } ?? "-",
                String(format: "%.2f", stream.volume), attributes ?? "-",
            ])
        }
        print(table(rows))
    }

    /// `bgctl audio ID COMMAND [ARGUMENT]`: sends the command as the app's media keys would and
    /// waits for the app's answer (`MPRemoteCommandHandlerStatus`); exits 1 unless it is
    /// `success`.
    private func sendRemoteCommand(_ name: String, to id: String) throws {
        guard let remote = RemoteCommand(rawValue: name) else {
            let known = RemoteCommand.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("'\(name)' is not a remote command (known: \(known))")
        }
        let bundle = try options.resolveBundle(id)
        // The daemon holds the reply up to 10 s for the app's answer: wait longer than that.
        let client: ControlClient
        let reply: DaemonMessage
        do {
            client = try ControlClient(socketPath: options.socket, timeout: .seconds(20))
            reply = try client.request(
                .remoteCommand(RemoteCommandRequest(bundle: bundle, command: remote, argument: argument)))
        } catch {
            printError("bgctl: \(error)")
            throw ExitCode(3)
        }
        switch reply.body {
        case .done(let done):
            if options.json { try options.printJSON(done) } else { print(done.detail) }
            guard let status = done.handlerStatus, status != .success else { return }
            printError("bgctl: \(bundle) did not carry out \(name): \(status.rawValue)")
            throw ExitCode.failure
        case .error(let error):
            printError("bgctl: \(error.message)")
            throw ExitCode.failure
        default:
            printError("bgctl: unexpected \(reply.className) to REMOTE_COMMAND")
            throw ExitCode.failure
        }
    }
}
