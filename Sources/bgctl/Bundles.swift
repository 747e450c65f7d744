import ArgumentParser
import BackgrounderProtocol

struct Bundles: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List bundles: id, name, modes, and whether each loaded or why it was refused."
    )

    @OptionGroup var options: CommonOptions

    func run() throws {
        guard case .bundles(let list) = try options.request(.bundles) else {
            throw ValidationError("unexpected reply")
        }
        if options.json {
            try options.printJSON(list.bundles)
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
                    entry.id ?? "-", entry.name ?? "-",
                    entry.modes.isEmpty ? "-" : entry.modes.joined(separator: ","), "loaded",
                ])
            case .refused:
                rows.append(["-", "-", "-", "refused \(entry.path): \(entry.key ?? "-"): \(entry.reason ?? "")"])
            }
        }
        print(table(rows))
    }
}
