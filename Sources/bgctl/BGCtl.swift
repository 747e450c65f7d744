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
            Authorize.self, Permissions.self, Regions.self, Audio.self, Logs.self, Bundles.self, Reload.self,
            Validate.self,
        ]
    )
}
