import SampleSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Runs what a person asked on the command line. It reads the log the app writes but never
/// changes it, since the app may be writing it at that moment; only `new` renames it.
enum HikeCommand {
    /// `EX_USAGE`.
    static let usageExit: Int32 = 64
    /// `EX_IOERR`.
    static let ioExit: Int32 = 74

    /// Runs the command line.
    /// - Parameter arguments: The arguments after the program's name.
    /// - Returns: The exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let commandLine: HikeCommandLine
        do {
            commandLine = try HikeCommandLine(arguments)
        } catch {
            complain("HikeRecorder: \(error)\n\(HikeCommandLine.usage)")
            return usageExit
        }
        if commandLine.action == .help {
            say(HikeCommandLine.usage)
            return 0
        }
        // The person's own target first, so its problem is reported before anything is read.
        let target: String? =
            switch commandLine.action {
            case .export(let path, _): path == "-" ? nil : path
            case .show(let output): output
            default: nil
            }
        if let target, let problem = OutputTarget.problem(with: target) {
            complain("HikeRecorder: \(problem)")
            return ioExit
        }
        // Every other command reads or writes the app's files, so it must know where they are.
        guard let files = TrackFiles.forCommandLine(stateDirectory: commandLine.stateDirectory) else {
            return SampleDataDirectory.unavailableExit
        }
        do {
            switch commandLine.action {
            case .help:
                break  // answered above, without asking the daemon
            case .stats:
                let track = try files.track(named: commandLine.track)
                say(describe(try read(track), at: track.log))
            case .export(let path, let name):
                let track = try files.track(named: commandLine.track)
                let contents = try read(track)
                let document = GPXWriter.document(
                    fixes: contents.fixes, name: name ?? GPXWriter.defaultName(for: contents.fixes))
                if path == "-" {
                    print(document, terminator: "")
                } else {
                    try DurableFiles.replace(path, with: Array(document.utf8))
                    say("wrote \(contents.fixes.count) fixes to \(path)")
                    say(describe(contents, at: track.log))
                }
            case .show(let output):
                let track = try files.track(named: commandLine.track)
                let fixes = try read(track).fixes
                guard let first = fixes.first else {
                    say("no fixes yet in \(track.log)")
                    return 0
                }
                let path = output ?? "hike-\(UTCTime.compact(first.timestamp)).svg"
                try DurableFiles.replace(
                    path, with: Array(TrackPicture.svg(fixes, title: GPXWriter.defaultName(for: fixes)).utf8))
                say("wrote \(path): \(TrackStatistics(fixes).summary)")
                say(TrackPicture.sparkline(fixes))
            case .list:
                say(list(files))
            case .start:
                say(try archive(files))
            }
            return 0
        } catch {
            complain("HikeRecorder: \(error)")
            return ioExit
        }
    }

    private static func read(_ track: TrackFiles.Track) throws -> TrackLog.Contents {
        try TrackLog.read(track.log) ?? TrackLog.Contents()
    }

    private static func describe(_ contents: TrackLog.Contents, at log: String) -> String {
        guard let first = contents.fixes.first, let last = contents.fixes.last else {
            return "no fixes yet in \(log)"
        }
        var text = "\(contents.fixes.count) fixes from \(UTCTime.iso8601(first.timestamp))"
        text += " to \(UTCTime.iso8601(last.timestamp)): \(TrackStatistics(contents.fixes).summary)"
        if contents.tornBytes > 0 {
            text += "\n(leaving out \(contents.tornBytes) bytes of a fix being written)"
        }
        if !contents.unreadableLines.isEmpty {
            text += "\n(skipped unreadable lines \(contents.unreadableLines.map(String.init).joined(separator: ", ")))"
        }
        return text
    }

    /// `1  2025-04-10T09:00:00Z  121 fixes  0.62 km, 10 min, +0 m`, a line per track, oldest
    /// first, the current one marked.
    private static func list(_ files: TrackFiles) -> String {
        let tracks = files.tracks()
        guard !tracks.isEmpty else { return "no tracks yet in \(files.directory)" }
        return tracks.enumerated().map { number, track in
            let fixes = (try? TrackLog.read(track.log))??.fixes ?? []
            let start = fixes.first.map { UTCTime.iso8601($0.timestamp) } ?? "(no fixes yet)"
            let current = track.isCurrent ? "  (current)" : ""
            return "\(number + 1)  \(start)  \(fixes.count) fixes  \(TrackStatistics(fixes).summary)\(current)"
        }.joined(separator: "\n")
    }

    /// Renames the current track's files after the time it started, so the next fix, in this
    /// process or the next, starts a new log.
    private static func archive(_ files: TrackFiles) throws -> String {
        let contents = try read(TrackFiles.Track(log: files.log, isCurrent: true))
        guard let first = contents.fixes.first else { return "no track to archive in \(files.log)" }
        let archived = try files.archiveCurrent(firstFix: first.timestamp)
        return "archived \(contents.fixes.count) fixes (\(TrackStatistics(contents.fixes).summary)) as \(archived); "
            + "the next fix starts a new track"
    }
}
