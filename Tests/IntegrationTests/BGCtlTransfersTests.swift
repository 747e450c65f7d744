import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// `bgctl transfers` as a person runs it, against a real daemon with nothing to transfer.
@Suite("bgctl transfers", .timeLimit(.minutes(5)), .tearsDown)
struct BGCtlTransfersTests {
    typealias Running = LifecycleTests.Running

    @Test("no transfers: the table says so, JSON is an empty list, --watch ends, a missing number is named")
    func empty() async throws {
        let running = try await Running(prefix: "ctlxfer") { _ in }
        atTeardown { await running.tearDown() }
        let socket = ["--socket", running.daemon.socketPath]
        let bgctl = { (arguments: [String]) in try await BGCtlTests.bgctl(arguments + socket, in: running.directory) }

        let table = try await bgctl(["transfers"])
        #expect(table.status == 0 && table.output.contains("no transfers"), "\(table.output)")
        let json = try await bgctl(["transfers", "--json"])
        #expect(json.status == 0)
        #expect(
            try CLIJSON.decode([TransferInfo].self, "transfers", from: json.output) == [])
        let watch = try await bgctl(["transfers", "--watch"])
        #expect(watch.status == 0 && watch.output.contains("no transfers"), "\(watch.output)")
        let missing = try await bgctl(["transfers", "4711"])
        #expect(missing.status == 1 && missing.output.contains("no transfer 4711"), "\(missing.output)")
        let both = try await bgctl(["transfers", "--watch", "--json"])
        #expect(both.status != 0 && both.output.contains("--watch"), "\(both.output)")
    }
}
