import Foundation
import SampleSupport

/// What a person can do from a shell: choose the feed, and read what the app fetched. Both
/// only touch the files; the app reads them at its next refresh.
enum FeedCommand {
    /// `EX_USAGE`.
    static let usageExit: Int32 = 64
    /// `EX_DATAERR`: an address or a stored file that is not valid.
    static let dataExit: Int32 = 65

    static let usage = """
        usage: FeedReader subscribe URL|PATH [--state-dir DIR]
                   make URL (http or https) or PATH (a file the app can read: in its data directory)
                   the feed, replacing the last one
               FeedReader items [--state-dir DIR]
                   print the items fetched so far, newest first
        The app's files are where the daemon on BACKGROUNDER_SOCKET (else the default socket) says;
        --state-dir DIR reads the state directory DIR instead, without asking.
        Without arguments it is the app, which backgrounderd launches (bgctl open \(FeedFiles.bundleIdentifier)).
        example:
          FeedReader subscribe https://example.org/feed.xml && bgctl open \(FeedFiles.bundleIdentifier)
        """

    /// Runs the command line.
    /// - Parameter arguments: The arguments after the program's name.
    /// - Returns: The exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let line: SampleCommandLine
        switch SampleCommandLine.parse(arguments) {
        case .success(let parsed): line = parsed
        case .failure(let error): return usageError(error.message)
        }
        let words = line.words
        // Asked only by the commands that read or write the app's files, not for help or a mistake.
        func withFiles(_ command: (FeedFiles) -> Int32) -> Int32 {
            guard let files = FeedFiles.forCommandLine(stateDirectory: line.stateDirectory) else {
                return SampleDataDirectory.unavailableExit
            }
            return command(files)
        }
        switch (words.first, words.count) {
        case ("subscribe", 2):
            return withFiles { files in subscribe(words[1], files: files) }
        case ("items", 1):
            return withFiles { files in items(files) }
        case ("help", 1):
            say(usage)
            return 0
        default:
            return usageError(line.notUnderstood)
        }
    }

    private static func usageError(_ message: String) -> Int32 {
        complain("FeedReader: \(message)\n\(usage)")
        return usageExit
    }

    private static func subscribe(_ address: String, files: FeedFiles) -> Int32 {
        do {
            let source = try FeedSource(parsing: address)
            try FileManager.default.createDirectory(
                atPath: files.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // World-readable: under a root daemon the app has its own uid, and this file keeps ours.
            try Data((source.description + "\n").utf8).write(to: URL(fileURLWithPath: files.source), options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: files.source)
            say("subscribed to \(source) (\(files.source)); the app fetches it at its next refresh")
            return 0
        } catch let error as FeedError {
            complain("FeedReader: \(error)")
            return dataExit
        } catch {
            complain("FeedReader: cannot write \(files.source): \(error.localizedDescription)")
            return 74
        }
    }

    private static func items(_ files: FeedFiles) -> Int32 {
        let snapshot: FeedSnapshot
        do {
            snapshot = try FeedStore.load(files.items)
        } catch {
            complain("FeedReader: \(error)")
            return dataExit
        }
        guard let source = snapshot.source else {
            say("nothing fetched yet (\(files.items))")
            return 0
        }
        say("\(snapshot.title.isEmpty ? source : snapshot.title): \(snapshot.items.count) items")
        for item in snapshot.items {
            let when = item.published.map { "\($0)  " } ?? ""
            say("  \(when)\(FeedRefresher.oneLine(item.title))\(item.link.map { "  <\($0)>" } ?? "")")
        }
        return 0
    }
}
