import ArgumentParser
import BackgrounderProtocol

struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rescan the bundle directories.",
        discussion: """
            Added bundles load, removed ones are forgotten (their apps quit first), changed ones \
            are read again. A loaded bundle keeps its identifier against a copy dropped beside it.

            Example:
              bgctl reload
            """)

    @OptionGroup var options: CommonOptions

    func run() throws {
        guard case .reload(let result) = try options.request(.reload) else {
            throw Failure.unexpectedReply
        }
        if options.json {
            try options.printJSON("reload", result)
            return
        }
        print("\(result.loaded) loaded, \(result.refused) refused")
        for id in result.added { print("added \(id)") }
        for id in result.removed { print("removed \(id)") }
    }
}
