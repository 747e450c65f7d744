import ArgumentParser
import BackgrounderBundles
import BackgrounderCore
import BackgrounderProtocol

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check bundles as the daemon would, without a daemon. Exits 1 if any is refused."
    )

    @OptionGroup var options: CommonOptions

    @Argument(help: "Bundle directories (Name.bundle).", completion: .directory)
    var paths: [String]

    func run() throws {
        let scanner = BundleScanner()
        var catalog = BundleCatalog()
        var entries: [BundleEntry] = []
        for path in paths {
            // The daemon loads only Name.bundle directories: one named otherwise would never load.
            let name = path.split(separator: "/").last.map(String.init) ?? path
            guard name.hasSuffix(".bundle") else {
                entries.append(.refused(BundleScanner.notABundle(path)))
                continue
            }
            switch scanner.validate(bundleAt: path) {
            case .success(let bundle):
                let refusedBefore = catalog.refused.count
                catalog.add(bundle)
                if catalog.refused.count > refusedBefore, let duplicate = catalog.refused.last {
                    entries.append(.refused(duplicate))
                } else {
                    entries.append(.loaded(bundle))
                }
            case .failure(let problem):
                entries.append(.refused(problem))
            }
        }
        let anyRefused = entries.contains { $0.status == .refused }
        if options.json {
            try options.printJSON(entries)
        } else {
            for entry in entries {
                switch entry.status {
                case .loaded:
                    print("ok \(entry.id ?? entry.path)")
                    for warning in entry.warnings { printError("warning \(warning)") }
                case .refused:
                    // The reason may quote the bundle's own text.
                    print("refused \(entry.path): \(entry.key ?? "-"): \(entry.reason ?? "")".escapedForTerminal)
                }
            }
        }
        if anyRefused { throw ExitCode.failure }
    }
}
