import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

struct Share: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Let an app read files or folders of yours where they are.",
        discussion: """
            As picking a document for an iOS app, or the desktop's document portal: the app \
            may then read each PATH (a file, or a folder with everything in it), and nothing \
            beside it. The daemon opens the files for the app when it asks; its sandbox does \
            not widen, and nothing is copied (bgctl import copies). What you share stays \
            shared across launches and restarts until bgctl unshare. Links in PATH are \
            resolved now; links inside a shared folder are not followed.

            Examples:
              bgctl share backgroundplayer ~/Music/album
              bgctl shared backgroundplayer
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String
    @Argument(help: ArgumentHelp("Files or folders to share.", valueName: "path"), completion: .file())
    var paths: [String]

    func validate() throws {
        guard !paths.isEmpty else { throw ValidationError("name at least one file or folder to share") }
    }

    func run() throws {
        let id = try options.resolveBundle(id)
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let absolute = paths.map { URL(fileURLWithPath: $0, relativeTo: current).standardized.path }
        try printShared(options.request(.share(ShareRequest(bundle: id, paths: absolute))), options: options)
    }
}

struct Unshare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Take back files or folders you shared with an app (all of them without a PATH).",
        discussion: """
            Each PATH as bgctl shared lists it. An app that has a file open keeps reading it \
            until it closes it; it cannot open it again.

            Examples:
              bgctl unshare backgroundplayer /home/me/Music/album
              bgctl unshare backgroundplayer
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String
    @Argument(help: ArgumentHelp("Shared paths to take back.", valueName: "path"), completion: .file())
    var paths: [String] = []

    func run() throws {
        let id = try options.resolveBundle(id, unloaded: true)
        try printShared(options.request(.unshare(UnshareRequest(bundle: id, paths: paths))), options: options)
    }
}

struct Shared: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the files and folders you shared with an app.",
        discussion: """
            Examples:
              bgctl shared backgroundplayer
              bgctl shared backgroundplayer --json
            """
    )
    @OptionGroup var options: CommonOptions
    @Argument(help: ArgumentHelp(appArgumentHelp, valueName: "id"), completion: .bundleIdentifier) var id: String

    func run() throws {
        let id = try options.resolveBundle(id, unloaded: true)
        try printShared(options.request(.shares(AppReference(bundle: id))), options: options)
    }
}

/// Prints a `SHARED` reply: a line per shared path, folders ending in `/`.
private func printShared(_ reply: DaemonMessage.Body, options: CommonOptions) throws {
    guard case .shared(let list) = reply else { throw Failure.unexpectedReply }
    if options.json { return try options.printJSON("shared", list) }
    if list.files.isEmpty { print("nothing is shared with \(list.bundle)") }
    for file in list.files { print((file.path + (file.directory && file.path != "/" ? "/" : "")).escapedForTerminal) }
}
