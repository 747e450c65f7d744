/// Why a file, directory or playlist gave nothing to play: the file, the playlist line when the
/// problem is in one, the entry as written, and what is wrong.
struct PlaylistError: Error, Equatable, CustomStringConvertible {
    /// The kind of problem.
    enum Code: Equatable {
        /// The path names nothing.
        case notFound
        /// The directory or playlist could not be read.
        case unreadable
        /// The directory or playlist holds no audio files.
        case noAudioFiles
        /// A playlist line names something that cannot be played.
        case badEntry
    }

    /// The kind of problem.
    var code: Code
    /// The path given, or the playlist holding the bad line, as the person named it.
    var file: String
    /// The playlist line, counting from 1, when the problem is in one.
    var line: Int?
    /// The entry as the playlist writes it, when the problem is in one.
    var entry: String?
    /// What is wrong.
    var reason: String

    /// `list.m3u:3: missing.flac: no such file`, or `music: no audio files`.
    var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return ([place, entry].compactMap { $0 } + [reason]).joined(separator: ": ")
    }
}
