import ArgumentParser
import BackgrounderCore
import Foundation

/// `bgctl`: drives a running backgrounderd from a terminal or a script.
@main
struct BGCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgctl",
        abstract: "Control backgrounderd: apps, their life cycle, bundles and status.",
        discussion: """
            Wherever a command takes an app, its bundle identifier, a unique suffix of it \
            (hello) or its name (Hello) will do. --json prints one object per command, \
            {"version": 1, ...}, and errors as JSON on standard error (docs/JSON.md). Exit \
            status: 0 done, 1 refused or failed, 3 the daemon cannot be reached, 64 a wrong \
            command line.

            Examples:
              bgctl status
              bgctl open hello
              bgctl ps
              bgctl --socket /tmp/bg/bg.sock ps --json
            """,
        version: BackgrounderVersion.release,
        subcommands: [
            Status.self, PS.self, Open.self, Home.self, Lock.self, Unlock.self, Quit.self, Push.self, Tasks.self,
            Transfers.self,
            Simulate.self,
            Notifications.self, Authorize.self, Permissions.self, Prompts.self, Answer.self, Regions.self, Audio.self,
            Import.self,
            Share.self, Unshare.self, Shared.self, Logs.self,
            Bundles.self,
            Reload.self, AdoptBundle.self,
            Validate.self,
        ]
    )

    /// Runs with the global options a person may put before the subcommand
    /// (`bgctl --socket PATH status`) moved to its end, where every subcommand reads them.
    ///
    /// Failures are reported here, in one form: `bgctl: MESSAGE` (or a JSON error with
    /// `--json`) and the exit status of README's table.
    static func main() {
        let arguments = GlobalOptions.movedAfterSubcommand(Array(CommandLine.arguments.dropFirst()))
        let json = arguments.prefix { $0 != "--" }.contains("--json")
        do {
            if let unknown = unknownSubcommand(in: arguments) { throw unknown }
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch let failure as Failure {
            failure.report(json: json)
            Foundation.exit(failure.exitStatus)
        } catch {
            // Help, --version and a command's own exit status go as ArgumentParser prints them;
            // so does a wrong command line, unless JSON was asked for.
            let status = exitCode(for: error)
            guard json, status != .success, !(error is ExitCode) else { exit(withError: error) }
            Failure(code: "usage", message: message(for: error), exitStatus: status.rawValue).report(json: true)
            Foundation.exit(status.rawValue)
        }
    }

    /// `bgctl opne ID`: the first word is no subcommand, so say which was probably meant
    /// rather than ArgumentParser's "2 unexpected arguments".
    static func unknownSubcommand(in arguments: [String]) -> Failure? {
        guard let word = arguments.first, !word.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(word) else { return nil }
        let hint = NearMiss.nearest(word, among: names).map { "did you mean \($0)?" } ?? "`bgctl --help` lists them"
        return .usage("'\(word)' is not a bgctl command; \(hint)")
    }
}

/// `--socket PATH` (or `--socket=PATH`) and `--json` are every subcommand's options; written
/// before the subcommand, as with most tools, they are moved after it.
enum GlobalOptions {
    static func movedAfterSubcommand(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--socket", index + 1 < arguments.count {
                leading += [argument, arguments[index + 1]]
                index += 2
            } else if argument.hasPrefix("--socket=") || argument == "--json" {
                leading.append(argument)
                index += 1
            } else {
                break
            }
        }
        guard !leading.isEmpty, index < arguments.count else { return arguments }
        let rest = Array(arguments[index...])
        // After a `--`, everything is an argument: the options go before it.
        if let separator = rest.firstIndex(of: "--") {
            return Array(rest[..<separator]) + leading + Array(rest[separator...])
        }
        return rest + leading
    }
}
