import BackgroundKit
import BackgrounderTestSupport
import Foundation
import Testing

@testable import HikeRecorder

@Suite("HikeRecorder's command line", .timeLimit(.minutes(5)))
struct HikeCommandTests {
    @Test("arguments parse into commands; mistakes are usage errors")
    func parsing() throws {
        #expect(try HikeCommandLine(["stats"]) == HikeCommandLine(action: .stats, stateDirectory: nil))
        #expect(
            try HikeCommandLine(["export", "out.gpx", "--state-dir", "/s", "--name", "Niesen"])
                == HikeCommandLine(action: .export(path: "out.gpx", name: "Niesen"), stateDirectory: "/s"))
        #expect(
            try HikeCommandLine(["--state-dir=/s", "new"]) == HikeCommandLine(action: .start, stateDirectory: "/s"))
        #expect(try HikeCommandLine(["start"]).action == .start)
        #expect(
            try HikeCommandLine(["show", "--track", "2", "--output=a.svg"])
                == HikeCommandLine(action: .show(output: "a.svg"), track: "2"))
        #expect(try HikeCommandLine(["list"]).action == .list)
        #expect(throws: HikeCommandLine.UsageError(description: "--track is for export, stats, show")) {
            try HikeCommandLine(["list", "--track", "1"])
        }
        #expect(try HikeCommandLine(["export", "-"]).action == .export(path: "-", name: nil))
        #expect(throws: HikeCommandLine.UsageError(description: "unknown command walk")) {
            try HikeCommandLine(["walk"])
        }
        #expect(throws: HikeCommandLine.UsageError(description: "unknown option --fast")) {
            try HikeCommandLine(["stats", "--fast"])
        }
        #expect(throws: HikeCommandLine.UsageError(description: "--state-dir needs a value")) {
            try HikeCommandLine(["stats", "--state-dir"])
        }
        #expect(throws: HikeCommandLine.UsageError(description: "export takes one PATH")) {
            try HikeCommandLine(["export"])
        }
        #expect(throws: HikeCommandLine.UsageError(description: "stats takes no arguments")) {
            try HikeCommandLine(["stats", "x"])
        }
    }

    @Test("stats, export and new on a real track, through the built program")
    func commands() async throws {
        let directory = try TemporaryDirectory(prefix: "hcl")
        defer { directory.remove() }
        let program = Locations.product("HikeRecorder")
        let files = TrackFiles(directory: directory.appending("data/\(TrackFiles.bundleIdentifier)"))
        let walk = Fix.walk(count: 30)
        _ = try TrackRecorder(files: files).record(walk)
        let summary = TrackStatistics(walk).summary

        let stats = try await runProgram(program, ["stats", "--state-dir", directory.path], in: directory)
        #expect(stats.status == 0)
        #expect(stats.output == "30 fixes from 2024-06-10T07:13:20Z to 2024-06-10T07:18:17.250Z: \(summary)\n")

        let exported = directory.appending("out.gpx")
        let export = try await runProgram(
            program, ["export", exported, "--name", "Niesen & back", "--state-dir", directory.path], in: directory)
        #expect(export.status == 0)
        #expect(export.output.hasPrefix("wrote 30 fixes to \(exported)\n"))
        let outline = try GPXOutline(Data(contentsOf: URL(fileURLWithPath: exported)))
        #expect(outline.elements(at: "gpx/trk/trkseg/trkpt").count == 30)
        #expect(outline.elements(at: "gpx/trk/name").first?.text == "Niesen & back")

        let new = try await runProgram(program, ["new", "--state-dir", directory.path], in: directory)
        #expect(new.status == 0)
        let archive = files.directory + "/track-20240610T071320Z"
        #expect(new.output.contains("archived 30 fixes (\(summary)) as \(archive).log"))
        #expect(try #require(try TrackLog.read(archive + ".log")).fixes == walk)
        #expect(FileManager.default.fileExists(atPath: archive + ".gpx"))
        #expect(!FileManager.default.fileExists(atPath: files.log))
        let empty = try await runProgram(program, ["stats", "--state-dir", directory.path], in: directory)
        #expect(empty.output == "no fixes yet in \(files.log)\n")

        // The archived walk is track 1; a second one, recorded now, is the current track 2.
        let second = Fix.walk(count: 12, from: 86_400)
        _ = try TrackRecorder(files: files).record(second)
        let list = try await runProgram(program, ["list", "--state-dir", directory.path], in: directory)
        #expect(
            list.output == """
                1  2024-06-10T07:13:20Z  30 fixes  \(summary)
                2  2024-06-11T07:13:20Z  12 fixes  \(TrackStatistics(second).summary)  (current)

                """)
        let picture = directory.appending("first.svg")
        let show = try await runProgram(
            program, ["show", "--track", "1", "--output", picture, "--state-dir", directory.path], in: directory)
        #expect(show.status == 0, "\(show.output)")
        #expect(show.output.hasPrefix("wrote \(picture): \(summary)\n"), "\(show.output)")
        #expect(try GPXOutline(Data(contentsOf: URL(fileURLWithPath: picture))).elements(at: "svg/polyline").count == 2)
        let missing = try await runProgram(
            program, ["stats", "--track", "3", "--state-dir", directory.path], in: directory)
        #expect(missing.status == 74)
        #expect(missing.output.contains("no track 3: HikeRecorder list shows 2 tracks"), "\(missing.output)")
    }

    @Test("an unknown command prints the usage and exits 64")
    func usage() async throws {
        let directory = try TemporaryDirectory(prefix: "hcl")
        defer { directory.remove() }
        let result = try await runProgram(Locations.product("HikeRecorder"), ["walk"], in: directory)
        #expect(result.status == 64)
        #expect(result.output.hasPrefix("HikeRecorder: unknown command walk\nusage: HikeRecorder export PATH"))
    }
}
