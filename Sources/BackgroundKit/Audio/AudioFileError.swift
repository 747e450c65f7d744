/// Why an ``AudioFile`` could not be opened, read or positioned: the file and libsndfile's reason.
public struct AudioFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem.
    public enum Code: Sendable, Hashable {
        /// The file is missing, unreadable, or not in a format libsndfile decodes.
        case cannotOpen
        /// Decoding failed part way through (a truncated or damaged file).
        case cannotRead
        /// The decoder could not move to the requested frame.
        case cannotSeek
    }

    /// The kind of problem.
    public var code: Code
    /// The file, as the caller named it.
    public var path: String
    /// What went wrong, in libsndfile's words (`sf_strerror`).
    public var reason: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of problem.
    ///   - path: The file, as the caller named it.
    ///   - reason: What went wrong.
    public init(code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// `song.flac: Format not recognised.`
    public var description: String { "\(path): \(reason)" }
}
