import ArgumentParser
import BackgrounderCore

/// `bgctl`: drives a running backgrounderd from a terminal or a script.
@main
struct BGCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgctl",
        abstract: "Control backgrounderd: status, bundles, reload, validate.",
        version: BackgrounderVersion.release,
        subcommands: [Status.self, Bundles.self, Reload.self, Validate.self]
    )
}
