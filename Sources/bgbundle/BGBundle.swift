import ArgumentParser
import BackgrounderBundles
import BackgrounderCore

/// The tool behind `swift package bundle`: assembles one built executable and its
/// Info.plist into `Name.bundle`, validated with the daemon's own rules.
@main
struct BGBundle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgbundle",
        abstract: "Assemble an executable and its Info.plist into Name.bundle."
    )

    @Option(help: "The bundle's base name (usually the product name).")
    var name: String

    @Option(help: "The built executable.")
    var executable: String

    @Option(name: .customLong("info-plist"), help: "The manifest kept beside the target's sources.")
    var infoPlist: String

    @Option(help: "The directory that receives Name.bundle.")
    var output: String

    func run() throws {
        do {
            let bundle = try BundleAssembler().assemble(
                name: name,
                executable: executable,
                infoPlist: infoPlist,
                outputDirectory: output
            )
            for warning in bundle.warnings {
                print("warning \(warning)")
            }
            print("bundled \(bundle.manifest.bundleIdentifier) -> \(bundle.path)")
        } catch let problem as BundleProblem {
            print("refused \(problem)")
            throw ExitCode.failure
        }
    }
}
