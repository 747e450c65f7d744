import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a person meets at each sample's command line, through the built programs: help,
/// the line for an app run by hand, and errors that name the path and the reason before
/// anything is sent or read. Exit statuses are README.md's table ("Exit status").
@Suite("The samples' command lines", .timeLimit(.minutes(5)))
struct SampleCommandLinesTests {
    static let samples = [
        "Hello", "Fibonacci", "Compactor", "FeedReader", "Podcasts", "HikeRecorder", "RegionAlerts", "BackgroundPlayer",
    ]
    static let identifiers = [
        "Hello": "org.backgrounder.samples.hello", "Fibonacci": "org.backgrounder.samples.fibonacci",
        "Compactor": "org.backgrounder.samples.compactor", "FeedReader": "org.backgrounder.samples.feedreader",
        "Podcasts": "org.backgrounder.samples.podcasts", "HikeRecorder": "org.backgrounder.samples.hikerecorder",
        "RegionAlerts": "org.backgrounder.samples.regionalerts",
        "BackgroundPlayer": "org.backgrounder.samples.backgroundplayer",
    ]
    /// No daemon, and not launched by one.
    static let byHand = ["BACKGROUNDER_FD": "", "BACKGROUNDER_SOCKET": "/nonexistent/backgrounderd.sock"]

    @Test("--help, -h and help print the usage with an example and exit 0", arguments: samples)
    func help(_ sample: String) async throws {
        let directory = try TemporaryDirectory(prefix: "help")
        defer { directory.remove() }
        for word in ["--help", "-h", "help"] {
            let result = try await runProgram(
                Locations.product(sample), [word], in: directory, environment: Self.byHand)
            #expect(result.status == 0, "\(sample) \(word): \(result.output)")
            #expect(result.output.hasPrefix("usage: \(sample)"), "\(sample) \(word): \(result.output)")
            #expect(result.output.contains("example"), "\(sample) \(word): \(result.output)")
        }
    }

    @Test(
        "run by hand without a command, an app says what it is and how it is launched, and exits 64", arguments: samples
    )
    func runByHand(_ sample: String) async throws {
        let directory = try TemporaryDirectory(prefix: "hand")
        defer { directory.remove() }
        let result = try await runProgram(Locations.product(sample), [], in: directory, environment: Self.byHand)
        #expect(result.status == 64)
        let identifier = try #require(Self.identifiers[sample])
        #expect(
            result.output
                == "\(sample) is an app that backgrounderd launches, not a program to run by hand: "
                + "bgctl open \(identifier) (\(sample) --help says more)\n")
    }

    @Test("an app without commands refuses arguments as a usage error", arguments: ["Hello", "Fibonacci", "Compactor"])
    func appOnlyArguments(_ sample: String) async throws {
        let directory = try TemporaryDirectory(prefix: "args")
        defer { directory.remove() }
        let result = try await runProgram(
            Locations.product(sample), ["start"], in: directory, environment: Self.byHand)
        #expect(result.status == 64)
        #expect(result.output.hasPrefix("\(sample): it takes no arguments, got 'start'\nusage: \(sample)"))
    }

    // MARK: BackgroundPlayer

    /// Runs BackgroundPlayer in `directory`, so relative paths are the person's.
    private func player(_ arguments: [String], in directory: TemporaryDirectory) async throws -> (
        status: Int32?, output: String
    ) {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return try await runProgram(
            "/bin/sh",
            [
                "-c",
                "cd '\(directory.path)' && exec '\(Locations.product("BackgroundPlayer"))' "
                    + quoted.joined(separator: " "),
            ],
            in: directory, environment: Self.byHand)
    }

    @Test(
        "play refuses what is not audio (65), what is not there (66) and an empty path (64), naming it, before the daemon is asked"
    )
    func playRefusals() async throws {
        let directory = try TemporaryDirectory(prefix: "play")
        defer { directory.remove() }
        try Data("shopping: milk, tea\n".utf8).write(to: URL(fileURLWithPath: directory.appending("notes.txt")))
        // An ID3 header and then no MPEG frame: libsndfile's MPEG decoder rejects it.
        let mp3 = Data("ID3".utf8) + Data([3, 0, 0, 0, 0, 0, 0]) + Data("garbage".utf8)
        try mp3.write(to: URL(fileURLWithPath: directory.appending("garbage.mp3")))
        try FileManager.default.createDirectory(atPath: directory.appending("empty"), withIntermediateDirectories: true)

        let cases: [([String], Int32, String)] = [
            (
                ["play", "notes.txt"], 65,
                "BackgroundPlayer: cannot play notes.txt: not audio libsndfile can read (Format not recognised.)\n"
            ),
            (
                ["play", "/etc/passwd"], 65,
                "BackgroundPlayer: cannot play /etc/passwd: not audio libsndfile can read (Format not recognised.)\n"
            ),
            (
                ["play", "garbage.mp3"], 65,
                "BackgroundPlayer: cannot play garbage.mp3: not audio libsndfile can read (Format not recognised.)\n"
            ),
            (["play", "missing.wav"], 66, "BackgroundPlayer: cannot play missing.wav: no such file or directory\n"),
            (["play", "empty"], 65, "BackgroundPlayer: cannot play empty: no audio files\n"),
        ]
        for (arguments, status, message) in cases {
            let result = try await player(arguments, in: directory)
            #expect(result.status == status, "\(arguments): \(result.output)")
            #expect(result.output == message, "\(arguments)")
        }
        let empty = try await player(["play", ""], in: directory)
        #expect(empty.status == 64)
        #expect(
            empty.output.hasPrefix(
                "BackgroundPlayer: play needs a PATH; '' names no file (resume plays on without one)\nusage: "))
    }

    @Test("a file that is audio gets past the check; without a daemon that is exit 69, saying so")
    func playWithoutDaemon() async throws {
        let directory = try TemporaryDirectory(prefix: "playd")
        defer { directory.remove() }
        let samples = [Int16](repeating: 0, count: 4410 * 2)
        try WAVFile.write(samples: samples, sampleRate: 44_100, channels: 2, to: directory.appending("quiet.wav"))
        let result = try await player(["play", "quiet.wav"], in: directory)
        #expect(result.status == 69, "\(result.output)")
        #expect(result.output.hasPrefix("1 item from quiet.wav\nBackgroundPlayer: "), "\(result.output)")
        #expect(result.output.contains("/nonexistent/backgrounderd.sock"), "\(result.output)")
    }

    // MARK: HikeRecorder and RegionAlerts

    @Test("HikeRecorder export checks its target first: the directory named, with the system's reason, exit 74")
    func hikeExportTarget() async throws {
        let directory = try TemporaryDirectory(prefix: "hike")
        defer { directory.remove() }
        let program = Locations.product("HikeRecorder")
        // No daemon and no --state-dir: the target is checked before the daemon would be asked.
        let missing = try await runProgram(
            program, ["export", "/nonexistent/dir/walk.gpx"], in: directory, environment: Self.byHand)
        #expect(missing.status == 74)
        #expect(
            missing.output
                == "HikeRecorder: cannot write /nonexistent/dir/walk.gpx: the directory /nonexistent/dir does not exist "
                + "(No such file or directory)\n")
        let intoDirectory = try await runProgram(
            program, ["export", directory.path], in: directory, environment: Self.byHand)
        #expect(intoDirectory.status == 74)
        #expect(
            intoDirectory.output
                == "HikeRecorder: cannot write \(directory.path): it is a directory; name a file in it\n")
        try Data().write(to: URL(fileURLWithPath: directory.appending("file")))
        let underFile = try await runProgram(
            program, ["export", directory.appending("file/walk.gpx")], in: directory, environment: Self.byHand)
        #expect(underFile.status == 74)
        #expect(
            underFile.output
                == "HikeRecorder: cannot write \(directory.appending("file/walk.gpx")): \(directory.appending("file")) is not a directory\n"
        )
    }

    @Test(
        "a --state-dir that does not exist is named with the system's reason, exit 66",
        arguments: ["HikeRecorder", "RegionAlerts"])
    func missingStateDirectory(_ sample: String) async throws {
        let directory = try TemporaryDirectory(prefix: "sdir")
        defer { directory.remove() }
        let command = sample == "HikeRecorder" ? "stats" : "list"
        let result = try await runProgram(
            Locations.product(sample), [command, "--state-dir", "/nonexistent/state"], in: directory,
            environment: Self.byHand)
        #expect(result.status == 66)
        #expect(result.output == "\(sample): --state-dir /nonexistent/state: No such file or directory\n")
    }

    @Test("RegionAlerts import checks its file before asking the daemon: missing is 66, a directory 65")
    func regionImportTarget() async throws {
        let directory = try TemporaryDirectory(prefix: "rimp")
        defer { directory.remove() }
        let program = Locations.product("RegionAlerts")
        let missing = try await runProgram(
            program, ["import", "/nonexistent/places.geojson"], in: directory, environment: Self.byHand)
        #expect(missing.status == 66)
        #expect(
            missing.output == "RegionAlerts: /nonexistent/places.geojson: cannot read it: No such file or directory\n")
        let folder = try await runProgram(program, ["import", directory.path], in: directory, environment: Self.byHand)
        #expect(folder.status == 65)
        #expect(folder.output == "RegionAlerts: \(directory.path): is a directory, not a regions file\n")
    }
}
