import BackgrounderTestSupport
import Foundation
import Testing

@testable import BackgroundPlayer

@Suite("BackgroundPlayer's playlists: a file, a directory or an M3U", .timeLimit(.minutes(5)))
struct PlaylistTests {
    private static let extensions: Set<String> = ["wav", "flac", "ogg", "mp3"]

    /// Makes empty files (the playlist never opens them) and directories ending in `/`.
    private func make(_ names: [String], in directory: TemporaryDirectory) throws {
        for name in names {
            if name.hasSuffix("/") {
                try FileManager.default.createDirectory(
                    atPath: directory.appending(name), withIntermediateDirectories: true)
            } else {
                #expect(FileManager.default.createFile(atPath: directory.appending(name), contents: Data()))
            }
        }
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    private func resolve(_ path: String) throws(PlaylistError) -> [String] {
        try Playlist.resolve(path, readableExtensions: Self.extensions)
    }

    @Test("a file is played as it is, whatever its name")
    func file() throws {
        let directory = try TemporaryDirectory(prefix: "pl")
        defer { directory.remove() }
        try make(["song.flac", "noise.xyz"], in: directory)
        #expect(try resolve(directory.appending("song.flac")) == [directory.appending("song.flac")])
        #expect(try resolve(directory.appending("noise.xyz")) == [directory.appending("noise.xyz")])
    }

    @Test("a path that names nothing is refused")
    func missing() throws {
        let directory = try TemporaryDirectory(prefix: "pl")
        defer { directory.remove() }
        let path = directory.appending("nothing.flac")
        let error = #expect(throws: PlaylistError.self) { try resolve(path) }
        #expect(error?.code == .notFound)
        #expect(error?.description == "\(path): no such file or directory")
    }

    @Test("a directory gives its audio files in natural order: not hidden ones, not subdirectories'")
    func directory() throws {
        let directory = try TemporaryDirectory(prefix: "pl")
        defer { directory.remove() }
        try make(
            [
                "10 x.flac", "2 x.flac", "1 x.wav", "UPPER.FLAC", ".hidden.flac", "notes.txt", "cover.jpg", "noext",
                "sub/", "sub/inner.flac", "dir.flac/",
            ], in: directory)
        let expected = ["1 x.wav", "2 x.flac", "10 x.flac", "UPPER.FLAC"].map { directory.appending($0) }
        #expect(try resolve(directory.path) == expected)
        #expect(try resolve(directory.path + "/") == expected)
    }

    @Test("a directory without audio files is refused")
    func emptyDirectory() throws {
        let directory = try TemporaryDirectory(prefix: "pl")
        defer { directory.remove() }
        try make(["notes.txt", ".hidden.flac", "sub/", "sub/inner.flac"], in: directory)
        let error = #expect(throws: PlaylistError.self) { try resolve(directory.path) }
        #expect(error?.code == .noAudioFiles)
        #expect(error?.description == "\(directory.path): no audio files")
    }

    @Test("natural order: numbers by value, letters without case, ties broken plainly")
    func naturalOrder() {
        let names = [
            "track 10", "Track 2", "track 1", "a02", "a2", "a10b", "a10a", "b", "A1", "track", "x99999999999999999999",
        ]
        #expect(
            names.sorted { $0.naturallyPrecedes($1) } == [
                "A1", "a02", "a2", "a10a", "a10b", "b", "track", "track 1", "Track 2", "track 10",
                "x99999999999999999999",
            ])
    }

    @Test("an M3U gives its entries in order: directives, comments and blank lines skipped")
    func m3u() throws {
        let directory = try TemporaryDirectory(prefix: "pl")
        defer { directory.remove() }
        try make(["lists/", "lists/a.flac", "lists/sub/", "lists/sub/b.ogg", "c d.mp3", "e.wav"], in: directory)
        let playlist = directory.appending("lists/Mix.M3U")
        try write(
            """
            #EXTM3U
            #EXTINF:123,Artist - A
            a.flac

              sub/b.ogg\r
            # a comment
            \(directory.appending("c d.mp3"))
            file://\(directory.path)/c%20d.mp3
            file://localhost\(directory.appending("e.wav"))
            ../e.wav
            """, to: playlist)
        #expect(
            try resolve(playlist) == [
                directory.appending("lists/a.flac"), directory.appending("lists/sub/b.ogg"),
                directory.appending("c d.mp3"), directory.appending("c d.mp3"), directory.appending("e.wav"),
                directory.appending("lists/../e.wav"),
            ])
    }

    @Test("an M3U8 is UTF-8, an older M3U may be Latin-1; both resolve against the playlist's directory")
    func encodings() throws {
        let directory = try TemporaryDirectory(prefix: "pl")
        defer { directory.remove() }
        try make(["Grüße.flac"], in: directory)
        let utf8 = directory.appending("list.m3u8")
        try write("\u{FEFF}#EXTM3U\nGrüße.flac\n", to: utf8)
        #expect(try resolve(utf8) == [directory.appending("Grüße.flac")])
        let latin1 = directory.appending("old.m3u")
        try Data("Gr\u{fc}\u{df}e.flac\n".data(using: .isoLatin1)!).write(to: URL(fileURLWithPath: latin1))
        #expect(try resolve(latin1) == [directory.appending("Grüße.flac")])
    }

    @Test(
        "a bad M3U entry is refused, naming the playlist, the line, the entry and why",
        arguments: [
            ("missing.flac", "no such file"),
            ("http://example.com/a.mp3", "streams are not played, only files"),
            ("HTTPS://example.com/a.mp3", "streams are not played, only files"),
            ("ftp://example.com/a.mp3", "ftp URLs are not played, only files"),
            ("file://elsewhere/music/a.flac", "only file:// URLs of this machine are played"),
            ("file:///music/%zz.flac", "is not a valid file URL"),
            ("other.m3u", "is a playlist; playlists inside playlists are not played"),
            ("sub", "is a directory, not an audio file"),
        ])
    func badEntry(entry: String, reason: String) throws {
        let directory = try TemporaryDirectory(prefix: "pl")
        defer { directory.remove() }
        try make(["a.flac", "other.m3u", "sub/"], in: directory)
        let playlist = directory.appending("list.m3u")
        try write("#EXTM3U\na.flac\n\(entry)\na.flac\n", to: playlist)
        let error = #expect(throws: PlaylistError.self) { try resolve(playlist) }
        #expect(error?.code == .badEntry)
        #expect(error?.line == 3)
        #expect(error?.description == "\(playlist):3: \(entry): \(reason)")
    }

    @Test("an M3U with nothing to play is refused")
    func emptyPlaylist() throws {
        let directory = try TemporaryDirectory(prefix: "pl")
        defer { directory.remove() }
        let playlist = directory.appending("list.m3u")
        try write("#EXTM3U\n\n# nothing yet\n", to: playlist)
        let error = #expect(throws: PlaylistError.self) { try resolve(playlist) }
        #expect(error?.code == .noAudioFiles)
        #expect(error?.description == "\(playlist): no audio files")
    }
}
