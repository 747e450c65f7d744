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
        if case .export(let path, _) = commandLine.action, path != "-", let problem = OutputTarget.problem(with: path) {
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
                say(describe(try read(files), in: files))
            case .export(let path, let name):
                let contents = try read(files)
                let document = GPXWriter.document(
                    fixes: contents.fixes, name: name ?? GPXWriter.defaultName(for: contents.fixes))
                if path == "-" {
                    print(document, terminator: "")
                } else {
                    try DurableFiles.replace(path, with: Array(document.utf8))
                    say("wrote \(contents.fixes.count) fixes to \(path)")
                    say(describe(contents, in: files))
                }
            case .new:
                say(try archive(files))
            }
            return 0
        } catch {
            complain("HikeRecorder: \(error)")
            return ioExit
        }
    }

    private static func read(_ files: TrackFiles) throws -> TrackLog.Contents {
        try TrackLog.read(files.log) ?? TrackLog.Contents()
    }

    private static func describe(_ contents: TrackLog.Contents, in files: TrackFiles) -> String {
        guard let first = contents.fixes.first, let last = contents.fixes.last else {
            return "no fixes yet in \(files.log)"
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

    /// Renames the current track's files after the time it started, so the next fix, in this
    /// process or the next, starts a new log.
    private static func archive(_ files: TrackFiles) throws -> String {
        let contents = try read(files)
        guard let first = contents.fixes.first else { return "no track to archive in \(files.log)" }
        let stamp = UTCTime.compact(first.timestamp)
        var base = files.directory + "/track-" + stamp
        var suffix = 2
        while access(base + ".log", F_OK) == 0 || access(base + ".gpx", F_OK) == 0 {
            base = files.directory + "/track-\(stamp)-\(suffix)"
            suffix += 1
        }
        try FileError.check(.rename, files.log) { rename(files.log, base + ".log") }
        if access(files.gpx, F_OK) == 0 {
            try FileError.check(.rename, files.gpx) { rename(files.gpx, base + ".gpx") }
        }
        try? DurableFiles.syncDirectory(of: files.log)
        return "archived \(contents.fixes.count) fixes (\(TrackStatistics(contents.fixes).summary)) as \(base).log; "
            + "the next fix starts a new track"
    }
}
