import ArgumentParser
import BackgrounderCore

/// `bgctl`: drives a running backgrounderd from a terminal or a script.
@main
struct BGCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgctl",
        abstract: "Control backgrounderd: apps, their life cycle, bundles and status.",
        version: BackgrounderVersion.release,
        subcommands: [
            Status.self, PS.self, Open.self, Home.self, Lock.self, Unlock.self, Quit.self, Push.self, Tasks.self,
            Transfers.self,
            Simulate.self,
            Notifications.self, Authorize.self, Permissions.self, Regions.self, Audio.self, Logs.self, Bundles.self,
            Reload.self,
            Validate.self,
        ]
    )

    /// Runs with the global options a person may put before the subcommand
    /// (`bgctl --socket PATH status`) moved to its end, where every subcommand reads them.
    static func main() {
        main(GlobalOptions.movedAfterSubcommand(Array(CommandLine.arguments.dropFirst())))
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
