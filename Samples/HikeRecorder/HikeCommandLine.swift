/// What a person asked `HikeRecorder` to do on the command line.
struct HikeCommandLine: Equatable {
    /// The commands.
    enum Action: Equatable {
        /// Write the current track as GPX to a path (`-` for standard output).
        case export(path: String, name: String?)
        /// Print the current track's statistics.
        case stats
        /// Archive the current track so the next fix starts a new one.
        case new
        /// Print the usage.
        case help
    }

    /// What to do.
    var action: Action
    /// The daemon's `--state-dir`, when not the default.
    var stateDirectory: String?

    /// The usage, for `help` and for mistakes.
    static let usage = """
        usage: HikeRecorder export PATH [--name NAME] [--state-dir DIR]
                   write the current track as GPX 1.1 to PATH (- for standard output)
               HikeRecorder stats [--state-dir DIR]
                   print the current track's distance, duration and elevation gain
               HikeRecorder new [--state-dir DIR]
                   archive the current track (track-TIME.log, track-TIME.gpx); the next fix starts a new one
        The app's files are where the daemon on BACKGROUNDER_SOCKET (else the default socket) says;
        --state-dir DIR reads the state directory DIR instead, without asking.
        Without arguments it is the app, which backgrounderd launches (bgctl open \(TrackFiles.bundleIdentifier)).
        examples:
          HikeRecorder stats
          HikeRecorder export ~/walk.gpx --name "Niesen"
        exit status: 0 done, 64 usage, 69 no daemon to say where the files are, 74 a file cannot be read or written
        """

    /// A mistake on the command line.
    struct UsageError: Error, Equatable, CustomStringConvertible {
        /// What was wrong.
        var description: String
    }
}

extension HikeCommandLine {
    /// Reads the arguments.
    /// - Parameter arguments: The arguments after the program's name.
    /// - Throws: ``UsageError`` naming what is wrong.
    init(_ arguments: [String]) throws(UsageError) {
        var words: [String] = []
        var name: String?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--state-dir", "--name":
                guard let value = remaining.popFirst(), !value.isEmpty else {
                    throw UsageError(description: "\(argument) needs a value")
                }
                if argument == "--name" { name = value } else { stateDirectory = value }
            case "-h", "--help":
                words.append("help")
            case let option where option.hasPrefix("--state-dir="):
                stateDirectory = String(option.dropFirst("--state-dir=".count))
            case let option where option.hasPrefix("--name="):
                name = String(option.dropFirst("--name=".count))
            case let option where option.hasPrefix("-") && option != "-":
                throw UsageError(description: "unknown option \(option)")
            default:
                words.append(argument)
            }
        }
        switch (words.first, words.count) {
        case ("export", 2): action = .export(path: words[1], name: name)
        case ("stats", 1): action = .stats
        case ("new", 1): action = .new
        case ("help", 1): action = .help
        case ("export", _): throw UsageError(description: "export takes one PATH")
        case (let command?, _) where ["stats", "new", "help"].contains(command):
            throw UsageError(description: "\(command) takes no arguments")
        case (let command?, _): throw UsageError(description: "unknown command \(command)")
        case (nil, _): throw UsageError(description: "no command")
        }
        if name != nil, words.first != "export" {
            throw UsageError(description: "--name is for export")
        }
    }
}
