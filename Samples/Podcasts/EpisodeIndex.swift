import Foundation

/// One downloaded episode.
struct Episode: Sendable, Hashable, Codable {
    /// The item's title.
    var title: String
    /// The enclosure's URL, which identifies the episode.
    var url: String
    /// The file's name in Episodes/.
    var file: String
    /// Its size in bytes.
    var bytes: Int64
}

/// The episodes downloaded so far (episodes.json), oldest first.
struct EpisodeIndex: Sendable, Hashable, Codable {
    var episodes: [Episode] = []

    /// Whether the episode at this URL is in.
    func contains(url: String) -> Bool { episodes.contains { $0.url == url } }

    /// Adds an episode, replacing one with the same URL.
    mutating func add(_ episode: Episode) {
        episodes.removeAll { $0.url == episode.url }
        episodes.append(episode)
    }

    /// A file name for an episode: the URL's last component with what a file name should not
    /// hold replaced (`/`, a leading dot, control characters), its extension kept so a player
    /// recognises the format, and `-2`, `-3`… before it when the name is taken.
    static func fileName(for url: String, taken: Set<String>) -> String {
        let last = URL(string: url)?.lastPathComponent ?? ""
        var name = String(
            last.map { character in
                character.isLetter || character.isNumber || "._-".contains(character) ? character : "_"
            })
        while name.hasPrefix(".") { name.removeFirst() }
        if name.isEmpty || name == "_" { name = "episode" }
        guard taken.contains(name) else { return name }
        let dot = name.lastIndex(of: ".")
        let stem = dot.map { String(name[..<$0]) } ?? name
        let suffix = dot.map { String(name[$0...]) } ?? ""
        var number = 2
        while taken.contains("\(stem)-\(number)\(suffix)") { number += 1 }
        return "\(stem)-\(number)\(suffix)"
    }

    /// Reads the index; a missing file is an empty index.
    /// - Throws: ``PodcastError`` naming the file when it cannot be read or decoded.
    static func load(_ path: String) throws(PodcastError) -> EpisodeIndex {
        guard FileManager.default.fileExists(atPath: path) else { return EpisodeIndex() }
        do {
            return try JSONDecoder().decode(EpisodeIndex.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw PodcastError("cannot read \(path): \(error)")
        }
    }

    /// Writes the index atomically.
    func save(_ path: String) throws(PodcastError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw PodcastError("cannot write \(path): \(error)")
        }
    }
}
