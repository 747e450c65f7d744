import BackgroundKit
import Foundation
import SampleSupport

/// Runs what a person asked on the command line, through the daemon: commands are remote
/// commands (the daemon wakes or launches the app for them), `status` reads what the app last
/// told the daemon it plays, so a suspended player is not woken just to be looked at.
enum PlayerCommand {
    /// The app's bundle identifier (its Info.plist's `CFBundleIdentifier`).
    static let bundleIdentifier = "org.backgrounder.samples.backgroundplayer"
    /// `EX_USAGE`.
    static let usageExit: Int32 = 64
    /// `EX_UNAVAILABLE`.
    static let unavailableExit: Int32 = 69

    /// Runs the command line.
    /// - Parameter arguments: The arguments after the program's name.
    /// - Returns: The exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let commandLine: PlayerCommandLine
        do {
            commandLine = try PlayerCommandLine(arguments)
        } catch {
            complain("BackgroundPlayer: \(error)\n\(PlayerCommandLine.usage)")
            return usageExit
        }
        do {
            switch commandLine.action {
            case .help:
                say(PlayerCommandLine.usage)
            case .play(let path):
                var argument: String?
                if let path {
                    // Resolve here first, so a mistake is reported to the person who made it.
                    let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
                    let items = try Playlist.resolve(absolute, readableExtensions: AudioFile.readableExtensions)
                    say("\(items.count) item\(items.count == 1 ? "" : "s") from \(path)")
                    argument = absolute
                }
                say(try connect().send(.play, to: bundleIdentifier, argument: argument))
            case .pause: say(try connect().send(.pause, to: bundleIdentifier))
            case .next: say(try connect().send(.nextTrack, to: bundleIdentifier))
            case .previous: say(try connect().send(.previousTrack, to: bundleIdentifier))
            case .seek(let seconds):
                say(try connect().send(.changePlaybackPosition, to: bundleIdentifier, argument: String(seconds)))
            case .status:
                say(try status(connect()))
            }
            return 0
        } catch let error as PlaylistError {
            complain("BackgroundPlayer: \(error)")
            return usageExit
        } catch {
            complain("BackgroundPlayer: \(error)")
            return unavailableExit
        }
    }

    private static func connect() throws -> DaemonConnection {
        try DaemonConnection(clientName: "BackgroundPlayer")
    }

    /// The app's state, what it plays and its streams' health.
    static func status(_ connection: DaemonConnection) throws -> String {
        let app = try connection.apps().first { $0.id == bundleIdentifier }
        let audio = try connection.audioStatus(bundle: bundleIdentifier)
        var lines = ["BackgroundPlayer: \(app?.state.rawValue ?? "not installed")"]
        if let info = audio.sessions.first?.nowPlaying {
            let place = info.index.map { " (\($0 + 1) of \(info.count ?? 0))" } ?? ""
            let length = info.duration.map { String(format: " / %.0f s", $0) } ?? ""
            lines.append("\(info.playing ? "playing" : "paused"): \(info.title)\(place)")
            lines.append(String(format: "at %.0f s", info.elapsed) + length)
        } else {
            lines.append("nothing playing")
        }
        for stream in audio.streams {
            lines.append(
                "stream \(stream.stream): \(stream.state), \(stream.format), underruns \(stream.underruns), overruns \(stream.overruns)"
            )
        }
        return lines.joined(separator: "\n")
    }
}
