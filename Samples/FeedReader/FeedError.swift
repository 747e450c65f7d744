/// Why a refresh or a command failed, in words that name the file, the URL or the field.
struct FeedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
