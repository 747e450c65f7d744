import BackgroundKit
import BackgrounderTestSupport
import Foundation
import Testing

@testable import HikeRecorder

@Suite("HikeRecorder's track log", .timeLimit(.minutes(5)))
struct TrackLogTests {
    @Test("fixes read back exactly as they were recorded, after a header line")
    func roundTrip() throws {
        let directory = try TemporaryDirectory(prefix: "hike")
        defer { directory.remove() }
        let path = directory.appending("track.log")
        let fixes =
            Fix.walk(count: 25) + [Fix.at(-33.868_820_001, 151.209_295_999, altitude: -3.5, time: 1_000.123_456)]

        let log = try TrackLog(path: path)
        #expect(log.fixes.isEmpty)
        let append = try log.append(fixes)
        #expect(append.recorded == fixes)

        let reopened = try TrackLog(path: path)
        #expect(reopened.fixes == fixes)
        #expect(reopened.recovered.tornBytes == 0)
        #expect(reopened.recovered.unreadableLines.isEmpty)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix(TrackLog.header + "\n"))
        #expect(text.hasSuffix("\n"))
        #expect(text.split(separator: "\n").count == fixes.count + 1)
    }

    @Test("the line format: exact time, nine decimals, empty fields for what the receiver did not report")
    func lineFormat() {
        let threeD = Fix.at(46.5, 7.25, altitude: 512.5, time: 0.5)
        #expect(threeD.trackLogLine == "1718003600.5,46.500000000,7.250000000,512.5,4.5,1.25,87.5")
        let twoD = Fix.at(-0.000_000_1, -179.999_999_9, time: 1)
        #expect(twoD.trackLogLine == "1718003601.0,-0.000000100,-179.999999900,,,,")
        #expect(Location(trackLogLine: Substring(twoD.trackLogLine)) == twoD)
        #expect(Location(trackLogLine: "1718003601.0,95.0,7.0,,,,") == nil)
        #expect(Location(trackLogLine: "1718003601.0,46.0,7.0,,,") == nil)
        #expect(Location(trackLogLine: "nan,46.0,7.0,,,,") == nil)
    }

    @Test("a line torn by SIGKILL is ignored by readers and cut off when the app opens the log")
    func tornLastLine() throws {
        let directory = try TemporaryDirectory(prefix: "hike")
        defer { directory.remove() }
        let path = directory.appending("track.log")
        let fixes = Fix.walk(count: 3)
        _ = try TrackLog(path: path).append(fixes)
        let intact = try Data(contentsOf: URL(fileURLWithPath: path))
        // The next line cut before its last digits still parses as a fix (course 8 rather than
        // 87.5); without its newline it is not one.
        let torn = String(Fix.at(46.6, 7.5, altitude: 1_600.125, time: 100).trackLogLine.dropLast(3))
        #expect(Location(trackLogLine: Substring(torn)) != nil)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(torn.utf8))
        try handle.close()

        let read = try #require(try TrackLog.read(path))
        #expect(read.fixes == fixes)
        #expect(read.tornBytes == torn.utf8.count)
        #expect(read.intactLength == intact.count)
        // Reading changes nothing: the app may be mid-write.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == intact.count + torn.utf8.count)

        let log = try TrackLog(path: path)
        #expect(log.recovered.tornBytes == torn.utf8.count)
        #expect(log.fixes == fixes)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == intact)

        let next = Fix.at(46.6, 7.5, altitude: 1_600.125, time: 100)
        _ = try log.append([next])
        let after = try #require(try TrackLog.read(path))
        #expect(after.fixes == fixes + [next])
        #expect(after.unreadableLines.isEmpty)
        #expect(after.tornBytes == 0)
    }

    @Test("a log torn inside its header starts again with a header")
    func tornHeader() throws {
        let directory = try TemporaryDirectory(prefix: "hike")
        defer { directory.remove() }
        let path = directory.appending("track.log")
        try Data("# HikeRec".utf8).write(to: URL(fileURLWithPath: path))
        let log = try TrackLog(path: path)
        #expect(log.fixes.isEmpty)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == TrackLog.header + "\n")
    }

    @Test("fixes delivered again, or older than the last one recorded, are not appended")
    func duplicates() throws {
        let directory = try TemporaryDirectory(prefix: "hike")
        defer { directory.remove() }
        let path = directory.appending("track.log")
        let walk = Fix.walk(count: 6)

        let log = try TrackLog(path: path)
        #expect(try log.append(Array(walk[0..<3])).recorded == Array(walk[0..<3]))
        // At-least-once delivery: the daemon sends a batch again after a crash.
        let again = try log.append(Array(walk[1..<4]))
        #expect(again.recorded == [walk[3]])
        #expect(again.alreadyRecorded == 2)
        #expect(try log.append([walk[0]]).recorded.isEmpty)
        // Out of order within a batch: the older one is dropped.
        let shuffled = try log.append([walk[5], walk[4]])
        #expect(shuffled.recorded == [walk[5]])
        #expect(shuffled.alreadyRecorded == 1)

        // After a relaunch the log remembers the last time.
        let reopened = try TrackLog(path: path)
        #expect(try reopened.append(walk).recorded.isEmpty)
        #expect(try #require(try TrackLog.read(path)).fixes == Array(walk[0..<4]) + [walk[5]])
    }

    @Test("fixes without a real position or time are left out and counted")
    func invalidFixes() throws {
        let directory = try TemporaryDirectory(prefix: "hike")
        defer { directory.remove() }
        let log = try TrackLog(path: directory.appending("track.log"))
        let good = Fix.at(46, 7, time: 0)
        let result = try log.append([
            Fix.at(.nan, 7, time: -1), good, Fix.at(46, 200, time: 1), Fix.at(46, 7, time: .infinity),
        ])
        #expect(result.recorded == [good])
        #expect(result.invalid == 3)
    }

    @Test("a complete line that is not a fix is skipped and reported; the lines around it are kept")
    func unreadableLine() throws {
        let directory = try TemporaryDirectory(prefix: "hike")
        defer { directory.remove() }
        let path = directory.appending("track.log")
        let (first, second) = (Fix.at(46, 7, time: 0), Fix.at(46.1, 7, time: 1))
        let text = TrackLog.header + "\n" + first.trackLogLine + "\ngarbage\n" + second.trackLogLine + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let log = try TrackLog(path: path)
        #expect(log.fixes == [first, second])
        #expect(log.recovered.unreadableLines == [3])
    }

    @Test("the recorder writes the log and track.gpx, and starts a new track once the log was archived")
    func recorderFollowsArchive() throws {
        let directory = try TemporaryDirectory(prefix: "hike")
        defer { directory.remove() }
        let files = TrackFiles(directory: directory.appending("data/app"))
        let walk = Fix.walk(count: 10)

        let recorder = try TrackRecorder(files: files)
        let report = try recorder.record(Array(walk[0..<6]))
        #expect(report.total == 6)
        #expect(report.line.hasPrefix("recorded 6 fixes (total 6): "))
        #expect(try String(contentsOfFile: files.gpx, encoding: .utf8).components(separatedBy: "<trkpt ").count == 7)

        let repeated = try recorder.record(Array(walk[4..<7]))
        #expect(repeated.line.hasPrefix("recorded 1 fixes (total 7): "))
        #expect(repeated.line.hasSuffix("; 2 already recorded"))

        // What `HikeRecorder new` does while the app holds the log open.
        #expect(rename(files.log, directory.appending("data/app/archived.log")) == 0)
        let fresh = try recorder.record(Array(walk[7..<10]))
        #expect(fresh.total == 3)
        #expect(try #require(try TrackLog.read(files.log)).fixes == Array(walk[7..<10]))
        #expect(
            try #require(try TrackLog.read(directory.appending("data/app/archived.log"))).fixes == Array(walk[0..<7]))
    }
}
