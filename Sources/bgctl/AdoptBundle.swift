import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol

struct AdoptBundle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "adopt-bundle",
        abstract: "Say a bundle that claims a removed app's identifier is that app: it gets its data and grants.",
        discussion: """
            An app's data and grants belong to the bundle the daemon loaded it from. When that \
            bundle is gone and another one claims its identifier (the app moved, or a \
            different program took its name), the newcomer starts fresh and the removed app's \
            data and grants are kept aside (the daemon's log names both). Adopting the \
            newcomer gives it the kept data directory and grants, and keeps its own aside in \
            their place: adopting again undoes it. Quit the app first.

            Examples:
              bgctl adopt-bundle org.backgrounder.samples.hikerecorder
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp("The full bundle identifier the refused bundle claims.", valueName: "id"))
    var id: String

    func run() throws {
        try report(options.request(.adoptBundle(AppReference(bundle: BundleID(id)))), options: options)
    }
}
