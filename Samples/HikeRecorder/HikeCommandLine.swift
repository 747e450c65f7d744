/// What a person asked `HikeRecorder` to do on the command line.
struct HikeCommandLine: Equatable {
    /// The commands.
    enum Action: Equatable {
        /// Write a track as GPX to a path (`-` for standard output).
        case export(path: String, name: String?)
        /// Print a track's statistics.
        case stats
        /// Archive the current track so the next fix starts a new one.
        case start
        /// List the tracks kept.
        case list
        /// Draw a track: an SVG picture, and a sparkline on the terminal.
        case show(output: String?)
        /// Print the usage.
        case help
    }

    /// What to do.
    var action: Action
    /// The daemon's `--state-dir`, when not the default.
    var stateDirectory: String?
    /// `--track`: which track (`HikeRecorder list`'s number, `current`, or its time).
    var track: String?

    init(action: Action, stateDirectory: String? = nil, track: String? = nil) {
        self.action = action
        self.stateDirectory = stateDirectory
        self.track = track
    }

    /// The usage, for `help` and for mistakes.
    static let usage = """
        usage: HikeRecorder export PATH [--name NAME] [--track TRACK] [--state-dir DIR]
                   write a track as GPX 1.1 to PATH (- for standard output)
               HikeRecorder stats [--track TRACK] [--state-dir DIR]
                   print a track's distance, duration and elevation gain
               HikeRecorder show [--track TRACK] [--output FILE.svg] [--state-dir DIR]
                   draw a track: its route to scale and its elevation profile as an SVG picture
                   (hike-TIME.svg here by default), and a sparkline of the profile
               HikeRecorder list [--state-dir DIR]
                   list the tracks kept, oldest first, numbered for --track
               HikeRecorder start [--state-dir DIR]   (or new)
                   archive the current track (track-TIME.log, track-TIME.gpx); the next fix starts a new one.
                   A fix after 30 min without one, or 2 km from the last, starts a new track by itself.
        TRACK is a number from list, current (the default), or an archived track's time (20250614T073020Z).
        The app's files are where the daemon on BACKGROUNDER_SOCKET (else the default socket) says;
        --state-dir DIR reads the state directory DIR instead, without asking.
        Without arguments it is the app, which backgrounderd launches (bgctl open \(TrackFiles.bundleIdentifier)).
        examples:
          HikeRecorder stats
          HikeRecorder show --track 1
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
        var options: [String: String] = [:]
        let valued = ["--state-dir", "--name", "--track", "--output"]
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if valued.contains(argument) {
                guard let value = remaining.popFirst(), !value.isEmpty else {
                    throw UsageError(description: "\(argument) needs a value")
                }
                options[argument] = value
                continue
            }
            if let option = valued.first(where: { argument.hasPrefix($0 + "=") }) {
                options[option] = String(argument.dropFirst(option.count + 1))
                continue
            }
            switch argument {
            case "-h", "--help": words.append("help")
            case let option where option.hasPrefix("-") && option != "-":
                throw UsageError(description: "unknown option \(option)")
            default: words.append(argument)
            }
        }
        let action: Action
        switch (words.first, words.count) {
        case ("export", 2): action = .export(path: words[1], name: options["--name"])
        case ("stats", 1): action = .stats
        case ("start", 1), ("new", 1): action = .start
        case ("list", 1): action = .list
        case ("show", 1): action = .show(output: options["--output"])
        case ("help", 1): action = .help
        case ("export", _): throw UsageError(description: "export takes one PATH")
        case (let command?, _) where ["stats", "start", "new", "list", "show", "help"].contains(command):
            throw UsageError(description: "\(command) takes no arguments")
        case (let command?, _): throw UsageError(description: "unknown command \(command)")
        case (nil, _): throw UsageError(description: "no command")
        }
        let command = words[0]
        for (option, commands) in [
            ("--name", ["export"]), ("--output", ["show"]), ("--track", ["export", "stats", "show"]),
        ]
        where options[option] != nil && !commands.contains(command) {
            throw UsageError(description: "\(option) is for \(commands.joined(separator: ", "))")
        }
        self.init(action: action, stateDirectory: options["--state-dir"], track: options["--track"])
    }
}
