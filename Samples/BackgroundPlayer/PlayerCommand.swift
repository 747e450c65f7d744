import BackgroundKit
import Foundation
import SampleSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs what a person asked on the command line, through the daemon: commands are remote
/// commands (the daemon wakes or launches the app for them, and passes back what the app made
/// of them), `status` reads what the app last told the daemon it plays, so a suspended player
/// is not woken just to be looked at.
enum PlayerCommand {
    /// The app's bundle identifier (its Info.plist's `CFBundleIdentifier`).
    static let bundleIdentifier = "org.backgrounder.samples.backgroundplayer"
    /// `EX_USAGE`.
    static let usageExit: Int32 = 64
    /// `EX_DATAERR`: a file that is not audio, or a playlist that names one.
    static let dataExit: Int32 = 65
    /// `EX_NOINPUT`: a file or directory that does not exist or may not be read.
    static let noInputExit: Int32 = 66
    /// `EX_UNAVAILABLE`: no daemon, or the app did not carry out the command.
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
                    // Checked here first, so a mistake is reported to the person who made it.
                    let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
                    let items = try playable(absolute, as: path)
                    say("\(items.count) item\(items.count == 1 ? "" : "s") from \(path)")
                    // The person chose these: the app may read them where they lie, and nothing
                    // else of the person's (a playlist's entries may lie outside its folder).
                    let shared = [absolute] + items.filter { $0 != absolute && !$0.hasPrefix(absolute + "/") }
                    _ = try connect().share(shared, with: bundleIdentifier)
                    argument = absolute
                }
                return try perform(.play, argument: argument, verb: "play")
            case .pause: return try perform(.pause, verb: "pause")
            case .next: return try perform(.nextTrack, verb: "next")
            case .previous: return try perform(.previousTrack, verb: "previous")
            case .seek(let seconds):
                return try perform(.changePlaybackPosition, argument: String(seconds), verb: "seek")
            case .status:
                say(try status(connect()))
            case .queue:
                say(try queue(connect()))
            case .volume(let level?):
                return try perform(.changeVolume, argument: String(level), verb: "volume")
            case .volume(nil):
                let info = try connect().audioStatus(bundle: bundleIdentifier).sessions.first?.nowPlaying
                say(info?.volume.map { String(format: "volume %.2f", $0) } ?? "volume: not known until something plays")
            case .shuffle(let mode):
                return try perform(.changeShuffleMode, argument: mode.rawValue, verb: "shuffle")
            case .repeatMode(let mode):
                return try perform(.changeRepeatMode, argument: mode.rawValue, verb: "repeat")
            }
            return 0
        } catch let error as PlaylistError {
            complain("BackgroundPlayer: cannot play \(error)")
            return error.code == .notFound || error.code == .unreadable ? noInputExit : dataExit
        } catch let error as AudioFileError {
            complain("BackgroundPlayer: cannot play \(error)")
            return error.systemError == nil ? dataExit : noInputExit
        } catch {
            complain("BackgroundPlayer: \(error)")
            return unavailableExit
        }
    }

    /// The files a path gives, each opened with libsndfile as the app will open it.
    /// - Parameters:
    ///   - absolute: The path, made absolute.
    ///   - typed: The path as the person typed it, for messages.
    /// - Throws: ``PlaylistError`` or ``AudioFileError`` naming the path and the reason.
    static func playable(_ absolute: String, as typed: String) throws -> [String] {
        let items: [String]
        do {
            items = try Playlist.resolve(absolute, readableExtensions: AudioFile.readableExtensions)
        } catch {
            throw error.naming(typed, for: absolute)
        }
        for item in items {
            do {
                try withoutStandardError { _ = try AudioFile(path: item) }
            } catch let error as AudioFileError {
                var named = error
                if item == absolute { named.path = typed }
                throw named
            }
        }
        return items
    }

    /// Sends a remote command and says what came of it: the app's own answer.
    private static func perform(_ command: RemoteCommand, argument: String? = nil, verb: String) throws -> Int32 {
        let done = try connect().perform(command, on: bundleIdentifier, argument: argument)
        guard let status = done.handlerStatus, status != .success else {
            say("\(verb): done")
            return 0
        }
        // The app's own words where the explanation here is a general one.
        let general = command == .play || status == .commandFailed
        let reason = done.handlerReason.map { general ? ": \($0.escapedForTerminal)" : "" } ?? ""
        complain(
            "BackgroundPlayer: \(verb): \(explanation(of: status, for: command)) (the app answered \(status.rawValue))\(reason)"
        )
        return unavailableExit
    }

    /// What a status the app answered means for a command, in a person's words.
    static func explanation(of status: RemoteCommandHandlerStatus, for command: RemoteCommand) -> String {
        switch (status, command) {
        case (.noSuchContent, .nextTrack): "there is no next track: the last one is playing"
        case (.noSuchContent, .previousTrack): "there is no previous track"
        case (.noSuchContent, _): "the app found nothing to play there"
        case (.noActionableNowPlayingItem, _): "nothing is playing or paused; start with BackgroundPlayer play PATH"
        case (.deviceNotFound, _): "there is no audio device to play on"
        case (.commandFailed, _): "the app could not carry it out (its log says why: bgctl logs \(bundleIdentifier))"
        case (.success, _): "done"
        }
    }

    private static func connect() throws -> DaemonConnection {
        try DaemonConnection(clientName: "BackgroundPlayer")
    }

    /// Runs `body` with standard error sent to /dev/null: libmpg123 prints notes there while
    /// libsndfile probes a damaged MP3, which would bury the one line that says what is wrong.
    private static func withoutStandardError<Result>(_ body: () throws -> Result) rethrows -> Result {
        let saved = dup(STDERR_FILENO)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        if saved >= 0, null >= 0 { dup2(null, STDERR_FILENO) }
        defer {
            if saved >= 0 {
                dup2(saved, STDERR_FILENO)
                close(saved)
            }
            if null >= 0 { close(null) }
        }
        return try body()
    }

    /// The app's state, what it plays and its streams' health.
    static func status(_ connection: DaemonConnection) throws -> String {
        let app = try connection.apps().first { $0.id.rawValue == bundleIdentifier }
        let audio = try connection.audioStatus(bundle: bundleIdentifier)
        var lines = ["BackgroundPlayer: \(app?.state.rawValue ?? "not installed")"]
        if let info = audio.sessions.first?.nowPlaying {
            let place = info.index.map { " (\($0 + 1) of \(info.count ?? 0))" } ?? ""
            let length = info.duration.map { String(format: " / %.0f s", $0) } ?? ""
            lines.append("\(info.playing ? "playing" : "paused"): \(info.title)\(place)")
            if let artist = info.artist { lines.append("by \(artist)") }
            if let album = info.album { lines.append("from \(album)") }
            lines.append(String(format: "at %.0f s", info.elapsed) + length)
            let shuffle = info.shuffleMode == .items ? "on" : "off"
            lines.append(
                String(format: "volume %.2f, ", info.volume ?? 1)
                    + "shuffle \(shuffle), repeat \((info.repeatMode ?? .off).rawValue)")
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

extension PlayerCommand {
    /// The queue in the order it plays, the current item marked with `>`; a long queue shows
    /// the part the app sent and says how many more there are.
    static func queue(_ connection: DaemonConnection) throws -> String {
        guard let info = try connection.audioStatus(bundle: bundleIdentifier).sessions.first?.nowPlaying,
            let queue = info.queue
        else { return "the queue is empty: BackgroundPlayer play PATH fills it" }
        let start = info.queueStart ?? 0
        let count = info.count ?? queue.count
        var lines: [String] = []
        if start > 0 { lines.append("  ... \(start) before") }
        for (offset, path) in queue.enumerated() {
            let place = start + offset
            let marker = place == info.index ? ">" : " "
            lines.append("\(marker) \(place + 1). \((path as NSString).lastPathComponent)")
        }
        let after = count - start - queue.count
        if after > 0 { lines.append("  ... \(after) more") }
        return lines.joined(separator: "\n")
    }
}

extension PlaylistError {
    /// The error with the path as the person typed it, where it names the path given.
    func naming(_ typed: String, for absolute: String) -> PlaylistError {
        var named = self
        if file == absolute { named.file = typed }
        return named
    }
}
