import ArgumentParser
import BackgrounderProtocol

struct Bundles: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List bundles: id, name, modes, and whether each loaded or why it was refused.",
        discussion: """
            A refused bundle's line names its directory, the Info.plist key at fault and how to \
            fix it; bgctl validate checks a bundle the same way before it is installed.

            Examples:
              bgctl bundles
              bgctl bundles --json | jq '.bundles[] | select(.status == "refused")'
            """
    )

    @OptionGroup var options: CommonOptions

    func run() throws {
        guard case .bundles(let list) = try options.request(.bundles) else {
            throw Failure.unexpectedReply
        }
        if options.json {
            try options.printJSON("bundles", list.bundles)
            return
        }
        if list.bundles.isEmpty {
            print("no bundles; put Name.bundle directories in a --bundles directory and run `bgctl reload`")
            return
        }
        var rows = [["ID", "NAME", "MODES", "STATUS"]]
        for entry in list.bundles {
            switch entry.status {
            case .loaded:
                rows.append([
                    entry.id?.rawValue ?? "-", entry.name ?? "-",
                    entry.modes.isEmpty ? "-" : entry.modes.joined(separator: ","), "loaded",
                ])
            case .refused:
                rows.append(["-", "-", "-", "refused \(entry.path): \(entry.key ?? "-"): \(entry.reason ?? "")"])
            }
        }
        print(table(rows))
    }
}
