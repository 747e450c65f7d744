/// How big a database is on disk, and how much of it is free pages that compaction gives back.
struct DatabaseSize: Hashable, Sendable, CustomStringConvertible {
    /// The file's size.
    var fileBytes: Int64
    /// Bytes per page.
    var pageSize: Int
    /// Pages in the file.
    var pages: Int
    /// Pages on the free list: space deleted rows left, which the file keeps until compacted.
    var freePages: Int

    var description: String {
        "\(fileBytes) bytes (\(pages) pages of \(pageSize), \(freePages) free)"
    }
}
