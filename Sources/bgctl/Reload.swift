import ArgumentParser
import BackgrounderProtocol

struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Rescan the bundle directories.")

    @OptionGroup var options: CommonOptions

    func run() throws {
        guard case .reload(let result) = try options.request(.reload) else {
            throw ValidationError("unexpected reply")
        }
        if options.json {
            try options.printJSON(result)
            return
        }
        print("\(result.loaded) loaded, \(result.refused) refused")
        for id in result.added { print("added \(id)") }
        for id in result.removed { print("removed \(id)") }
    }
}
