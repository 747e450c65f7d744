import ArgumentParser
import BackgrounderBundles
import BackgrounderCore
import BackgrounderProtocol

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check bundles as the daemon would, without a daemon. Exits 1 if any is refused.",
        discussion: """
            Reads each Name.bundle directory given, and nothing else: no daemon is asked, so it \
            works before one is installed. A directory whose name does not end in .bundle is \
            refused, because the daemon would never load it.

            Examples:
              bgctl validate Bundles/Hello.bundle
              bgctl validate --json ~/.local/share/backgrounder/bundles/*.bundle
            """
    )

    @Flag(help: "Print JSON instead of text, for scripts.")
    var json = false

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
        if json {
            try JSONOutput.print("bundles", entries)
        } else {
            for entry in entries {
                switch entry.status {
                case .loaded:
                    print("ok \(entry.id?.rawValue ?? entry.path)")
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
