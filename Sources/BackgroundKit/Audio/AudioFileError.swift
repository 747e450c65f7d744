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
    /// What went wrong, in libsndfile's words (`sf_strerror`), or the system's.
    public var reason: String
    /// The system's error (`errno`) when the file itself could not be reached (it does not
    /// exist, or may not be read); `nil` when the problem is in what it holds.
    public var systemError: Int32?

    /// Creates an error.
    /// - Parameters:
    ///   - code: The kind of problem.
    ///   - path: The file, as the caller named it.
    ///   - reason: What went wrong.
    ///   - systemError: The system's error, when the file could not be reached.
    public init(code: Code, path: String, reason: String, systemError: Int32? = nil) {
        self.code = code
        self.path = path
        self.reason = reason
        self.systemError = systemError
    }

    /// `song.flac: Format not recognised.`
    public var description: String { "\(path): \(reason)" }
}
