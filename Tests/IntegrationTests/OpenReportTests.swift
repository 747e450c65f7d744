import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// `bgctl open` reports what happened to the launch: a launch once the app checked in, an app
/// that ends before that as a failure with its exit and its last words. Judged by bgctl's exit
/// status and JSON, the app's state, and the log the daemon keeps.
@Suite("bgctl open reports the launch", .timeLimit(.minutes(5)), .tearsDown)
struct OpenReportTests {
    /// Says two lines (one to standard error, one made to look like a daemon's marker), then
    /// exits 3 without checking in.
    static let crasher = """
        #!/usr/bin/python3
        import sys
        print("-- 2026-01-01T00:00:00.000+0000 launched (forged) as pid 1 --", flush=True)
        print("cannot read settings.json: No such file or directory", file=sys.stderr, flush=True)
        sys.exit(3)
        """
    /// Checks in a second after it starts, then stays.
    static let slowStarter = """
        time.sleep(1)
        \(PythonAppBundles.checkIn)
        time.sleep(600)
        """

    struct ErrorBody: Decodable {
        var code: String
        var message: String
        var exitStatus: Int
    }

    func bgctl(_ arguments: [String], _ running: LifecycleTests.Running) async throws -> (
        status: Int32?, output: String
    ) {
        try await BGCtlTests.bgctl(arguments + ["--socket", running.daemon.socketPath], in: running.directory)
    }

    @Test("an app that exits at once is a failure naming its status and its last lines; --no-wait is a launch")
    func crashAtStart() async throws {
        let running = try await LifecycleTests.Running(prefix: "open-crash") { bundles in
            _ = try PythonAppBundles.make("Crasher", script: Self.crasher, prelude: false, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let id = "org.backgrounder.tests.crasher"

        // Without waiting, it is started: that is all open knows.
        let started = try await bgctl(["open", id, "--no-wait"], running)
        #expect(started.status == 0 && started.output.contains("launched \(id)"), "\(started.output)")
        #expect(await waitUntil { (try? running.app(id)).map { $0.pid == nil } ?? false })

        // Waiting, the exit before check-in is the answer.
        let failed = try await bgctl(["open", id, "--json"], running)
        #expect(failed.status == 1, "\(failed.output)")
        // Printed on standard error; standard output is empty.
        let error = try CLIJSON.decode(ErrorBody.self, "error", from: failed.output)
        #expect(error.code == "failed" && error.exitStatus == 1)
        #expect(error.message.contains("ended before it checked in: crashed: exited with status 3"), "\(error.message)")
        #expect(error.message.contains("cannot read settings.json: No such file or directory"), "\(error.message)")
        // The forged marker is the app's line, shown as such; only this run's lines are given.
        #expect(error.message.contains("launched (forged)"), "\(error.message)")
        #expect(error.message.components(separatedBy: "cannot read settings.json").count == 2, "\(error.message)")

        // The log: two runs, each between the daemon's markers, every line of the app stamped.
        let raw = try String(contentsOfFile: running.daemon.stateDirectory + "/logs/\(id).log", encoding: .utf8)
        let lines = raw.split(separator: "\n").map(AppLogFormat.parse)
        let markers = lines.filter(\.isMarker).map(\.text)
        #expect(markers.count == 4, "\(raw)")
        #expect(markers.filter { $0.hasPrefix("launched (user) as pid ") }.count == 2, "\(raw)")
        #expect(markers.filter { $0 == "crashed: exited with status 3" }.count == 2, "\(raw)")
        #expect(lines.allSatisfy { $0.stamp != nil }, "\(raw)")
        #expect(lines.filter { !$0.isMarker }.count == 4, "\(raw)")
    }

    @Test("open answers once the app checked in: it is active when bgctl returns")
    func waitsForCheckIn() async throws {
        let running = try await LifecycleTests.Running(prefix: "open-wait") { bundles in
            _ = try PythonAppBundles.make("Slow", script: Self.slowStarter, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let id = "org.backgrounder.tests.slow"
        let opened = try await bgctl(["open", id, "--json"], running)
        #expect(opened.status == 0, "\(opened.output)")
        let done = try CLIJSON.decode(Done.self, "result", from: opened.output)
        // Answered at the launch, it would be inactive: the app sleeps a second first.
        #expect(done.state == .active, "\(opened.output)")
        #expect(running.appLog(id).contains("checkin "), "\(running.appLog(id))")
    }

    @Test("a program that never checks in is reported as started but silent once the check-in deadline passes")
    func neverChecksIn() async throws {
        let running = try await LifecycleTests.Running(
            prefix: "open-silent", extraArguments: ["--check-in-deadline", "1"]
        ) {
            bundles in
            _ = try PythonAppBundles.make(
                "Silent", script: "#!/usr/bin/python3\nimport time\ntime.sleep(600)\n", prelude: false, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let id = "org.backgrounder.tests.silent"
        let opened = try await bgctl(["open", id, "--json"], running)
        #expect(opened.status == 0, "\(opened.output)")
        let done = try CLIJSON.decode(Done.self, "result", from: opened.output)
        #expect(done.detail.contains("has not checked in after 1"), "\(done.detail)")
        // It is the person's app, in front: not ended for its silence.
        #expect(try running.app(id).pid != nil)
    }
}
