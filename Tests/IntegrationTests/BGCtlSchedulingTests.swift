import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// `bgctl push` and `bgctl tasks` as a person runs them, against a real daemon and app.
@Suite("bgctl push and tasks", .timeLimit(.minutes(5)), .tearsDown)
struct BGCtlSchedulingTests {
    typealias Running = LifecycleTests.Running

    @Test("push delivers, then says until when it is deferred; tasks lists the deferred push; bad input is named")
    func pushAndTasks() async throws {
        var id = ""
        let running = try await Running(
            prefix: "ctlpush", extraArguments: ["--scheduling", "pushBurst=1,pushRefill=3600,pushWindow=30"]
        ) { bundles in
            id = try TestAppBundles.make("Pusher", behavior: "push", modes: ["remote-notification"], into: bundles)
        }
        atTeardown { await running.tearDown() }
        let socket = ["--socket", running.daemon.socketPath]
        let bgctl = { (arguments: [String]) in try await BGCtlTests.bgctl(arguments + socket, in: running.directory) }

        let first = try await bgctl(["push", id, "--payload", #"{"aps":{"content-available":1},"k":1}"#])
        #expect(first.status == 0, "\(first.output)")
        #expect(await waitUntil { running.appLog(id).contains(#""k":1}"#) }, "\(running.appLog(id))")

        let second = try await bgctl(["push", id, "--payload", #"{"aps":{"content-available":1},"k":2}"#])
        #expect(second.status == 0, "\(second.output)")
        #expect(
            second.output.range(of: #"deferred until \d\d:\d\d"#, options: .regularExpression) != nil,
            "\(second.output)")
        #expect(!running.appLog(id).contains(#""k":2}"#), "a deferred push is not delivered yet")

        let table = try await bgctl(["tasks"])
        #expect(table.status == 0)
        #expect(
            table.output.contains("APP") && table.output.contains(id) && table.output.contains("push"),
            "\(table.output)")
        let json = try await bgctl(["tasks", id, "--json"])
        let list = ScheduleList(entries: try CLIJSON.decode([ScheduledWork].self, "tasks", from: json.output))
        #expect(list.entries.contains { $0.bundle.rawValue == id && $0.kind == "push" && $0.nextRun != nil }, "\(list)")

        let notJSON = try await bgctl(["push", id, "--payload", "{nope"])
        #expect(notJSON.status != 0)
        #expect(notJSON.output.contains("--payload is not JSON"), "\(notJSON.output)")
        let unknown = try await bgctl(["push", "org.example.nope"])
        #expect(unknown.status != 0)
        #expect(unknown.output.contains("org.example.nope"), "\(unknown.output)")
        let noApp = try await bgctl(["push"])
        #expect(noApp.status != 0)
        #expect(noApp.output.contains("--token"), "\(noApp.output)")
    }
}
