import BackgroundKit

/// What a person asked for on BackgroundPlayer's command line.
struct PlayerCommandLine: Equatable {
    enum Action: Equatable {
        case play(String?)
        case pause
        case next
        case previous
        case seek(Double)
        case status
        case queue
        /// A level from 0 to 1, or `nil` to show it.
        case volume(Double?)
        case shuffle(ShuffleMode)
        case repeatMode(RepeatMode)
        case help
    }

    var action: Action

    static let usage = """
        usage: BackgroundPlayer play PATH   play a file, a directory or an .m3u playlist
               BackgroundPlayer pause | resume | next | previous
               BackgroundPlayer seek SECONDS
               BackgroundPlayer status | queue
               BackgroundPlayer volume [LEVEL]        the player's own volume, 0 to 1
               BackgroundPlayer shuffle on|off
               BackgroundPlayer repeat off|one|all    nothing, the item, or the whole queue
        Each command goes to the app through backgrounderd (BACKGROUNDER_SOCKET names its socket),
        which launches the app when it is not running and wakes it when it is suspended; what the
        app answers is the outcome. Files are checked with libsndfile before they are sent, and
        shared with the app (bgctl share): it reads them where they are, and nothing else of yours.
        resume with nothing queued plays your music folder, once you allow the player into your
        music library (it asks the first time: bgctl prompts, or the desktop's notification).
        status, queue and volume without a LEVEL read what the app last told the daemon, so a
        suspended player is not woken to be looked at. Volume, shuffle and repeat are kept
        across launches.
        Without a command it is the app itself, which backgrounderd launches.
        examples:
          BackgroundPlayer play ~/Music/album      every audio file in the directory, in order
          BackgroundPlayer queue                   the items in the order they play, > the current one
          BackgroundPlayer volume 0.5
          BackgroundPlayer next                    fails (exit 69) on the last track, unless repeating all
        exit status: 0 done, 64 usage, 65 not audio, 66 no such file, 69 no daemon or not carried out
        """

    /// Parses the arguments after the program's name.
    /// - Throws: ``PlayerCommandLineError`` naming what is wrong.
    init(_ arguments: [String]) throws(PlayerCommandLineError) {
        if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) {
            action = .help
            return
        }
        guard let verb = arguments.first else { throw PlayerCommandLineError("no command") }
        let rest = Array(arguments.dropFirst())
        func noMore() throws(PlayerCommandLineError) {
            guard rest.isEmpty else { throw PlayerCommandLineError("\(verb) takes no arguments") }
        }
        switch verb {
        case "play":
            guard rest.count <= 1 else { throw PlayerCommandLineError("play takes one PATH") }
            if let path = rest.first, path.isEmpty {
                throw PlayerCommandLineError("play needs a PATH; '' names no file (resume plays on without one)")
            }
            action = .play(rest.first)
        case "resume":
            try noMore()
            action = .play(nil)
        case "pause":
            try noMore()
            action = .pause
        case "next":
            try noMore()
            action = .next
        case "previous":
            try noMore()
            action = .previous
        case "seek":
            guard rest.count == 1, let seconds = Double(rest[0]), seconds.isFinite, seconds >= 0 else {
                throw PlayerCommandLineError("seek takes SECONDS, a number of seconds from the start")
            }
            action = .seek(seconds)
        case "status":
            try noMore()
            action = .status
        case "queue":
            try noMore()
            action = .queue
        case "volume":
            guard rest.count <= 1 else { throw PlayerCommandLineError("volume takes one LEVEL, from 0 to 1") }
            guard let text = rest.first else {
                action = .volume(nil)
                return
            }
            guard let level = Double(text), level.isFinite, (0...1).contains(level) else {
                throw PlayerCommandLineError("volume takes a LEVEL from 0 to 1 (0.5 is half), not '\(text)'")
            }
            action = .volume(level)
        case "shuffle":
            let modes = ["on": ShuffleMode.items, "off": .off]
            guard rest.count == 1, let mode = modes[rest[0]] else {
                throw PlayerCommandLineError("shuffle takes on or off")
            }
            action = .shuffle(mode)
        case "repeat":
            guard rest.count == 1, let mode = RepeatMode(rawValue: rest[0]) else {
                throw PlayerCommandLineError("repeat takes off, one or all")
            }
            action = .repeatMode(mode)
        case "help", "-h", "--help":
            action = .help
        default:
            throw PlayerCommandLineError("unknown command '\(verb)'")
        }
    }
}

/// A command line BackgroundPlayer does not understand.
struct PlayerCommandLineError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
