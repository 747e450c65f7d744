import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give an app files: the daemon copies them into its data directory.",
        discussion: """
            As sharing files into an iOS app: each PATH (a file, or a directory with everything \
            in it) is copied under its own name into the app's data directory, which the app \
            reads as BACKGROUNDER_DATA_DIR. The daemon makes the copies as the app's user and \
            never follows a link inside the app's directory or inside a directory you give; \
            nothing already there is replaced. Copying into the app's directory yourself, as \
            root, would follow links the app planted there. Prints where each PATH went, then \
            what was left out and why.

            Examples:
              bgctl import backgroundplayer ~/Music/album
              bgctl import backgroundplayer song.flac other.ogg
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String
    @Argument(help: ArgumentHelp("Files or directories to copy.", valueName: "path"), completion: .file())
    var paths: [String]

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("name at least one file or directory to import") }
    }

    func run() throws {
        let id = try options.resolveBundle(id)
        let current = FileManager.default.currentDirectoryPath
        let sources = paths.map { path in
            URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: current, isDirectory: true)).standardized.path
        }
        // A copy of an album can take a while; ten minutes bounds a hang.
        guard
            case .imported(let result) = try options.request(
                .importFiles(ImportRequest(bundle: id, sources: sources)), timeout: .seconds(600))
        else { throw Failure.unexpectedReply }
        if options.json {
            try options.printJSON("import", result)
        } else {
            for destination in result.destinations { print(destination.escapedForTerminal) }
            print(
                "\(result.files) file(s), \(ByteCountFormatter.string(fromByteCount: Int64(result.bytes), countStyle: .binary)) copied"
            )
            for skip in result.skipped { print("skipped \(skip.path.escapedForTerminal): \(skip.reason)") }
        }
    }
}
