import BackgroundKit
import Foundation

/// Turns what the person named on the command line (a file, a directory or an M3U playlist)
/// into the audio files to play, in order.
enum Playlist {
    /// The files to play.
    /// - Parameters:
    ///   - path: A file (played as it is), a directory (its audio files, not its subdirectories'
    ///     nor hidden ones, in natural order), or an `.m3u` / `.m3u8` playlist (its entries).
    ///   - readableExtensions: Lowercased extensions of the formats the decoder reads, to pick
    ///     audio files out of a directory.
    /// - Returns: At least one path.
    /// - Throws: ``PlaylistError`` naming the path, or the playlist line, and what is wrong.
    static func resolve(_ path: String, readableExtensions: Set<String>) throws(PlaylistError) -> [String] {
        let files: [String]
        switch Entry(at: path) {
        case .missing:
            throw PlaylistError(code: .notFound, file: path, reason: "no such file or directory")
        case .refused(let reason):
            throw PlaylistError(code: .unreadable, file: path, reason: reason)
        case .directory:
            files = try audioFiles(inDirectory: path, readableExtensions: readableExtensions)
        case .file where isPlaylist(path):
            files = try entries(ofPlaylist: path)
        case .file:
            files = [path]
        }
        guard !files.isEmpty else {
            throw PlaylistError(code: .noAudioFiles, file: path, reason: "no audio files")
        }
        return files
    }

    /// Whether a name is an M3U playlist's.
    static func isPlaylist(_ path: String) -> Bool {
        ["m3u", "m3u8"].contains(fileExtension(of: path))
    }

    // MARK: Directories

    private static func audioFiles(
        inDirectory directory: String, readableExtensions: Set<String>
    ) throws(PlaylistError) -> [String] {
        let names: [String]
        do throws(SharedFileError) {
            // Through the daemon when a person shared the folder and the sandbox keeps it out.
            names = try SharedFiles.contentsOfDirectory(atPath: directory)
        } catch {
            throw PlaylistError(code: .unreadable, file: directory, reason: "cannot be listed: \(error.reason)")
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return
            names
            .filter { name in
                !name.hasPrefix(".") && readableExtensions.contains(fileExtension(of: name))
                    && Entry(at: prefix + name) == .file
            }
            .sorted { $0.naturallyPrecedes($1) }
            .map { prefix + $0 }
    }

    // MARK: Paths

    enum Entry: Equatable {
        case missing
        case directory
        case file
        /// There, but the app may not read it (not shared with it), and why.
        case refused(String)

        /// What is at a path, following symbolic links; asked of the daemon for a path a
        /// person shared that the sandbox keeps out.
        init(at path: String) {
            do throws(SharedFileError) {
                switch try SharedFiles.kind(atPath: path) {
                case nil: self = .missing
                case .directory: self = .directory
                case .file: self = .file
                }
            } catch {
                self = .refused(error.reason)
            }
        }
    }

    /// `m3u` for `Some List.M3U`; empty without an extension or for a hidden name's leading dot.
    static func fileExtension(of path: String) -> String {
        let name = path.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }

    /// The directory part of a path with its trailing slash (`lists/` for `lists/a.m3u`), or
    /// empty for a bare name, so an entry can be appended to it.
    static func directoryPart(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }
}
