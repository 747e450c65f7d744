import BackgroundKit
import Foundation

extension Playlist {
    /// The files an M3U playlist lists, relative ones resolved against the playlist's directory.
    static func entries(ofPlaylist playlist: String) throws(PlaylistError) -> [String] {
        let data: Data
        do throws(SharedFileError) {
            data = Data(try SharedFiles.contents(atPath: playlist))
        } catch {
            throw PlaylistError(code: .unreadable, file: playlist, reason: "cannot be read: \(error.reason)")
        }
        // .m3u8 is UTF-8 by definition; older .m3u files are often Latin-1, which never fails.
        let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) ?? ""
        let directory = directoryPart(of: playlist)
        var files: [String] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\u{FEFF}")))
            // #EXTM3U, #EXTINF and every other directive or comment carries nothing to play.
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let bad = { (reason: String) in
                PlaylistError(code: .badEntry, file: playlist, line: index + 1, entry: line, reason: reason)
            }
            let path: String
            switch location(of: line) {
            case .path(let named): path = named.hasPrefix("/") ? named : directory + named
            case .failure(let reason): throw bad(reason)
            }
            switch Entry(at: path) {
            case .missing: throw bad("no such file")
            case .refused(let reason): throw bad(reason)
            case .directory: throw bad("is a directory, not an audio file")
            case .file where isPlaylist(path): throw bad("is a playlist; playlists inside playlists are not played")
            case .file: files.append(path)
            }
        }
        return files
    }

    private enum Location {
        case path(String)
        case failure(String)
    }

    /// The file a playlist line names: a path, or a `file://` URL with its percent escapes decoded.
    private static func location(of line: String) -> Location {
        guard let separator = line.range(of: "://") else { return .path(line) }
        let scheme = line[..<separator.lowerBound].lowercased()
        // A path may hold "://" too ("a: b://c"), so only what can be a URL scheme makes a URL.
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
        else { return .path(line) }
        let rest = line[separator.upperBound...]
        switch scheme {
        case "file":
            // file:///music/a.flac or file://localhost/music/a.flac; another host is not this machine.
            guard let slash = rest.firstIndex(of: "/"), ["", "localhost"].contains(rest[..<slash].lowercased()) else {
                return .failure("only file:// URLs of this machine are played")
            }
            guard let decoded = String(rest[slash...]).removingPercentEncoding else {
                return .failure("is not a valid file URL")
            }
            return .path(decoded)
        case "http", "https":
            return .failure("streams are not played, only files")
        default:
            return .failure("\(scheme) URLs are not played, only files")
        }
    }
}
