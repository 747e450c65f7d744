import BackgrounderTestSupport
import Foundation
import Testing

@testable import Podcasts

/// Podcasts' index of downloaded episodes and the names of their files.
@Suite("Podcasts: the episode index", .timeLimit(.minutes(5)))
struct EpisodeIndexTests {
    @Test("a file keeps the URL's name and extension; a taken name gets -2, -3 before the extension")
    func fileNames() {
        #expect(EpisodeIndex.fileName(for: "http://h/a/Ep%201.wav", taken: []) == "Ep_1.wav")
        #expect(EpisodeIndex.fileName(for: "http://h/ep.wav", taken: ["ep.wav"]) == "ep-2.wav")
        #expect(EpisodeIndex.fileName(for: "http://h/ep.wav", taken: ["ep.wav", "ep-2.wav"]) == "ep-3.wav")
        #expect(EpisodeIndex.fileName(for: "http://h/.hidden", taken: []) == "hidden")
        #expect(EpisodeIndex.fileName(for: "http://h/", taken: []) == "episode")
    }

    @Test("adding an episode with a known URL replaces it; the index survives a save and a load")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/episodes.json"
        #expect(try EpisodeIndex.load(path) == EpisodeIndex())
        var index = EpisodeIndex()
        index.add(Episode(title: "One", url: "http://h/1.wav", file: "1.wav", bytes: 10))
        index.add(Episode(title: "Two", url: "http://h/2.wav", file: "2.wav", bytes: 20))
        index.add(Episode(title: "One again", url: "http://h/1.wav", file: "1-2.wav", bytes: 11))
        #expect(index.episodes.map(\.title) == ["Two", "One again"])
        #expect(index.contains(url: "http://h/2.wav"))
        #expect(!index.contains(url: "http://h/3.wav"))
        try index.save(path)
        #expect(try EpisodeIndex.load(path) == index)
    }

    @Test("an unreadable index is an error naming the file")
    func unreadable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/episodes.json"
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try EpisodeIndex.load(path)
        } throws: { error in
            (error as? PodcastError)?.description.hasPrefix("cannot read \(path)") == true
        }
    }
}
