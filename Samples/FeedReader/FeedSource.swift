import Foundation

/// Where the feed comes from: an HTTP server, or a file (for machines where the app cannot
/// reach the network, and for trying feeds by hand).
enum FeedSource: Hashable, Sendable, CustomStringConvertible {
    /// An `http://` or `https://` URL.
    case http(URL)
    /// An absolute path.
    case file(String)

    /// Reads a source as a person writes it: the first line that is not empty or a `#` comment.
    /// - Parameter text: The text of `feed.url`, or a command-line argument.
    /// - Throws: ``FeedError`` saying what is wrong with it.
    init(parsing text: String) throws(FeedError) {
        let line = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .first { !$0.isEmpty && !$0.hasPrefix("#") }
        guard let line else { throw FeedError("no feed address: expected an http(s) URL or an absolute file path") }
        let lowered = line.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            guard let url = URL(string: line), let host = url.host, !host.isEmpty else {
                throw FeedError("'\(line)' is not a valid URL (it needs a host)")
            }
            self = .http(url)
        } else if lowered.hasPrefix("file://") {
            guard let url = URL(string: line), url.isFileURL, url.path.hasPrefix("/") else {
                throw FeedError("'\(line)' is not a valid file URL")
            }
            self = .file(url.path)
        } else if line.hasPrefix("/") {
            self = .file(line)
        } else {
            throw FeedError("'\(line)' is neither an http(s) URL nor an absolute file path")
        }
    }

    /// Reads the source from the app's `feed.url`.
    /// - Throws: ``FeedError`` naming the file when it is missing or wrong.
    static func load(from path: String) throws(FeedError) -> FeedSource {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw FeedError("no feed to read: \(path) does not exist or cannot be read (FeedReader subscribe URL)")
        }
        do {
            return try FeedSource(parsing: text)
        } catch {
            throw FeedError("\(path): \(error)")
        }
    }

    /// The source as it is written in `feed.url`, which also identifies it in `items.json`.
    var description: String {
        switch self {
        case .http(let url): url.absoluteString
        case .file(let path): path
        }
    }
}
