import Foundation
import SampleSupport

/// What a person can do from a shell: choose the feed, and see what the app downloaded. Both
/// only touch the files; the app reads them when it is opened.
enum PodcastCommand {
    /// `EX_USAGE`.
    static let usageExit: Int32 = 64
    /// `EX_DATAERR`.
    static let dataExit: Int32 = 65
    /// `EX_IOERR`.
    static let ioExit: Int32 = 74

    static let usage = """
        usage: Podcasts subscribe URL [--state-dir DIR]
                   the podcast's RSS feed (http or https), replacing the last one
               Podcasts list [--state-dir DIR]
                   the episodes downloaded so far, and where their files are
        The app's files are where the daemon on BACKGROUNDER_SOCKET (else the default socket) says;
        --state-dir DIR reads the state directory DIR instead, without asking.
        Without arguments it is the app, which backgrounderd launches (bgctl open \(PodcastFiles.bundleIdentifier)):
        it downloads the new episodes in the background.
        example:
          Podcasts subscribe https://example.org/podcast.rss && bgctl open \(PodcastFiles.bundleIdentifier)
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
        func withFiles(_ command: (PodcastFiles) -> Int32) -> Int32 {
            guard let files = PodcastFiles.forCommandLine(stateDirectory: line.stateDirectory) else {
                return SampleDataDirectory.unavailableExit
            }
            return command(files)
        }
        switch (words.first, words.count) {
        case ("subscribe", 2):
            return withFiles { files in subscribe(words[1], files: files) }
        case ("list", 1):
            return withFiles { files in list(files) }
        case ("help", 1):
            say(usage)
            return 0
        default:
            return usageError(line.notUnderstood)
        }
    }

    /// The feed's URL, checked.
    /// - Throws: ``PodcastError`` naming the URL and why it is not usable.
    static func feedURL(_ address: String) throws(PodcastError) -> URL {
        guard let url = URL(string: address), let scheme = url.scheme?.lowercased() else {
            throw PodcastError("URL '\(address)' is not a URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw PodcastError("URL '\(address)' is \(scheme), not http or https")
        }
        guard url.host?.isEmpty == false else { throw PodcastError("URL '\(address)' has no host") }
        return url
    }

    private static func usageError(_ message: String) -> Int32 {
        complain("Podcasts: \(message)\n\(usage)")
        return usageExit
    }

    private static func subscribe(_ address: String, files: PodcastFiles) -> Int32 {
        let url: URL
        do {
            url = try feedURL(address)
        } catch {
            complain("Podcasts: \(error)")
            return dataExit
        }
        do {
            try FileManager.default.createDirectory(
                atPath: files.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try Data((url.absoluteString + "\n").utf8).write(to: URL(fileURLWithPath: files.feed), options: .atomic)
            // World-readable: under a root daemon the app has its own uid, and this file keeps ours.
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: files.feed)
        } catch {
            complain("Podcasts: cannot write \(files.feed): \(error.localizedDescription)")
            return ioExit
        }
        say("subscribed to \(url.absoluteString); open the app to download new episodes")
        return 0
    }

    private static func list(_ files: PodcastFiles) -> Int32 {
        let index: EpisodeIndex
        do {
            index = try EpisodeIndex.load(files.index)
        } catch {
            complain("Podcasts: \(error)")
            return dataExit
        }
        guard !index.episodes.isEmpty else {
            say("no episodes yet (\(files.index))")
            return 0
        }
        say("\(index.episodes.count) episodes in \(files.episodes):")
        for episode in index.episodes {
            say("  \(episode.file)  \(episode.bytes) bytes  \(episode.title)")
        }
        return 0
    }
}
