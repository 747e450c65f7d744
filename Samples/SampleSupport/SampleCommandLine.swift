/// A sample's command line as a person types it: words (`subscribe URL`), `--state-dir DIR`
/// to read a state directory without asking the daemon (``SampleDataDirectory``), and
/// `-h`/`--help` as the word `help`.
public struct SampleCommandLine: Sendable, Hashable {
    /// The command and its arguments.
    public var words: [String] = []
    /// `--state-dir`, when given.
    public var stateDirectory: String?

    /// Reads `arguments` (those after the program's name).
    /// - Returns: The command line, or what is wrong with it, for the usage message.
    public static func parse(_ arguments: [String]) -> Result<SampleCommandLine, SampleCommandLineError> {
        var line = SampleCommandLine()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--state-dir" {
                guard let value = remaining.popFirst(), !value.isEmpty else {
                    return .failure(SampleCommandLineError(message: "--state-dir needs a value"))
                }
                line.stateDirectory = value
            } else if argument == "-h" || argument == "--help" {
                line.words.append("help")
            } else if argument.hasPrefix("-") {
                return .failure(SampleCommandLineError(message: "unknown option \(argument)"))
            } else {
                line.words.append(argument)
            }
        }
        return .success(line)
    }

    /// What to say when the words match no command.
    public var notUnderstood: String {
        words.isEmpty ? "no command" : "cannot understand '\(words.joined(separator: " "))'"
    }
}

/// What is wrong with a sample's command line.
public struct SampleCommandLineError: Error, Sendable, Hashable {
    public var message: String
}
