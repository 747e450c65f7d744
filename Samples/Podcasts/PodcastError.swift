/// What went wrong, naming the file, URL or field.
struct PodcastError: Error, CustomStringConvertible, Equatable {
    var description: String
    init(_ description: String) { self.description = description }
}
