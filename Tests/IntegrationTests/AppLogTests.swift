import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// App output is capped per app, with one rotation, and `bgctl logs` reads it.
@Suite("App output cap and bgctl logs", .timeLimit(.minutes(10)), .tearsDown)
struct AppLogTests {
    static let spewer = "org.backgrounder.tests.spewer"
    /// 200 MiB in 1 MiB writes, then a marker; once `go` appears in its data directory,
    /// 17 MiB more (past one whole log) and a second marker, then quiet.
    static let script = """
        #!/usr/bin/python3
        import os, sys, time
        line = b"spew " + b"x" * 1018 + b"\\n"
        chunk = line * 1024
        for _ in range(200):
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.write(b"spew done\\n")
        sys.stdout.buffer.flush()
        go = os.path.join(os.environ["BACKGROUNDER_DATA_DIR"], "go")
        while not os.path.exists(go):
            time.sleep(0.1)
        for _ in range(17):
            sys.stdout.buffer.write(chunk)
        sys.stdout.buffer.write(b"after rotation \\x1b[2J\\n")
        sys.stdout.buffer.flush()
        time.sleep(600)
        """

    private static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    @Test(
        "200 MiB to stdout leaves at most 16 MiB in ID.log and 16 MiB in ID.log.1; bgctl logs prints the tail and follows"
    )
    func spewIsCapped() async throws {
        let running = try await LifecycleTests.Running(prefix: "applog") { bundles in
            try PythonAppBundles.make("Spewer", script: Self.script, prelude: false, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let log = running.daemon.stateDirectory + "/logs/\(Self.spewer).log"
        _ = try running.request(.open(OpenApp(bundle: BundleID(Self.spewer))))
        let finished = await waitUntil(timeout: .seconds(120)) { Self.ending(of: log).hasSuffix("spew done\n") }
        #expect(finished, "current log \(Self.size(log)) bytes")
        let cap = 16 << 20
        #expect(Self.size(log) <= cap && Self.size(log) > 0, "\(Self.size(log))")
        #expect(Self.size(log + ".1") == cap, "the rotation is a whole log: \(Self.size(log + ".1"))")
        #expect(!FileManager.default.fileExists(atPath: log + ".2"))

        // The tail, escaped; -n chooses how much.
        let tail = try await bgctl(["logs", Self.spewer, "-n", "3", "--socket", running.daemon.socketPath], running)
        #expect(tail.status == 0, "\(tail.output)")
        let lines = tail.output.split(separator: "\n").map(AppLogFormat.parse)
        #expect(lines.count == 3 && lines.last?.text == "spew done", "\(tail.output.suffix(300))")
        #expect(
            lines.allSatisfy { $0.stamp != nil }, "each line after the time it was read: \(tail.output.suffix(300))")

        // Following: the app writes a whole log more, which rotates the file under bgctl.
        let follow = try ChildProcess(
            Locations.product("bgctl"), ["logs", Self.spewer, "-f", "-n", "0", "--socket", running.daemon.socketPath],
            logPath: running.directory.appending("follow.log"))
        defer { follow.signal(SIGKILL) }
        // Once it has the log open, so what follows is what it must show.
        #expect(
            await waitUntil {
                let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(follow.pid)/fd")) ?? []
                return fds.contains {
                    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(follow.pid)/fd/\($0)")) == log
                }
            })
        _ = FileManager.default.createFile(
            atPath: running.daemon.stateDirectory + "/data/\(Self.spewer)/go", contents: nil)
        #expect(
            await waitUntil(timeout: .seconds(60)) { follow.output.contains("after rotation \\u{1B}[2J") },
            "\(follow.output.suffix(300))")
        #expect(!follow.output.unicodeScalars.contains("\u{1b}"))
        #expect(Self.size(log) <= cap && Self.size(log + ".1") <= cap)
        #expect(running.daemon.isRunning)
    }

    /// The last bytes of a file, without reading all 16 MiB.
    private static func ending(of path: String) -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? file.close() }
        let end = (try? file.seekToEnd()) ?? 0
        try? file.seek(toOffset: end > 64 ? end - 64 : 0)
        return String(decoding: (try? file.readToEnd()) ?? Data(), as: UTF8.self)
    }

    private func bgctl(_ arguments: [String], _ running: LifecycleTests.Running) async throws -> (
        status: Int32?, output: String
    ) {
        let process = try ChildProcess(
            Locations.product("bgctl"), arguments,
            logPath: running.directory.appending("bgctl-\(UUID().uuidString.prefix(6)).log"))
        #expect(await process.waitForExit(timeout: .seconds(30)))
        return (process.terminationStatus, process.output)
    }
}
