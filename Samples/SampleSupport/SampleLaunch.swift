import Foundation

/// What a sample's process is: the app, when backgrounderd launched it; a command, when a
/// person gave one; and otherwise a person who ran the app by hand, who is told so in one line.
public enum SampleLaunch {
    /// `EX_USAGE`: an app run by hand without a command.
    public static let notLaunchedExit: Int32 = 64

    /// Whether backgrounderd launched this process: it hands every launch a connection,
    /// named by `BACKGROUNDER_FD`.
    public static var isLaunchedByDaemon: Bool {
        ProcessInfo.processInfo.environment["BACKGROUNDER_FD"].map { !$0.isEmpty } ?? false
    }

    /// The line for a person who ran the app by hand:
    /// `Hello is an app that backgrounderd launches, not a program to run by hand: bgctl open org.backgrounder.samples.hello (Hello --help says more)`.
    public static func notLaunchedLine(program: String, identifier: String) -> String {
        "\(program) is an app that backgrounderd launches, not a program to run by hand: "
            + "bgctl open \(identifier) (\(program) --help says more)"
    }

    /// Runs a command when the person gave one, and exits with its status; says what the
    /// program is and exits when it was run by hand without one; returns only when
    /// backgrounderd launched it, to become the app.
    /// - Parameters:
    ///   - program: The program's name, for messages.
    ///   - identifier: The app's bundle identifier.
    ///   - command: Runs the arguments after the program's name and returns the exit status.
    public static func commandOrApp(program: String, identifier: String, command: ([String]) -> Int32) {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if !arguments.isEmpty { exit(command(arguments)) }
        guard isLaunchedByDaemon else {
            complain(notLaunchedLine(program: program, identifier: identifier))
            exit(notLaunchedExit)
        }
    }

    /// The command line of an app that has no commands: `--help` (`-h`, `help`) prints `usage`
    /// and exits 0; anything else is a usage error.
    /// - Parameters:
    ///   - arguments: The arguments after the program's name.
    ///   - program: The program's name, for messages.
    ///   - usage: What the app is and how to launch it, with an example.
    /// - Returns: The exit status.
    public static func appOnly(_ arguments: [String], program: String, usage: String) -> Int32 {
        if arguments.count == 1, ["-h", "--help", "help"].contains(arguments[0]) {
            say(usage)
            return 0
        }
        complain("\(program): it takes no arguments, got '\(arguments.joined(separator: " "))'\n\(usage)")
        return notLaunchedExit
    }
}
