import Foundation

/// Reads and writes `items.json`.
enum FeedStore {
    /// The stored snapshot, or an empty one when there is none yet.
    /// - Throws: ``FeedError`` naming the file when it exists but cannot be read as a snapshot.
    static func load(_ path: String) throws(FeedError) -> FeedSnapshot {
        guard FileManager.default.fileExists(atPath: path) else { return FeedSnapshot() }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(FeedSnapshot.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw FeedError("\(path) cannot be read: \(error)")
        }
    }

    /// Replaces the stored snapshot; a reader sees the old file or the new one, never half.
    /// - Throws: ``FeedError`` naming the file.
    static func save(_ snapshot: FeedSnapshot, to path: String) throws(FeedError) {
        do {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(snapshot).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw FeedError("cannot write \(path): \(error)")
        }
    }
}
