import BackgrounderTestSupport
import Foundation
import Testing

/// `scripts/bench.sh`'s report (scripts/lib/bench-report.py): what it says about a run follows
/// from the rounds' records, not from the order they came in or from a single round.
@Suite struct BenchReportTests {
    @Test("medians of the rounds' ratios, their spread, goals met or missed, and a history line per full run")
    func reportsMediansAndGoals() async throws {
        let directory = try TemporaryDirectory(prefix: "bench-report")
        defer { directory.remove() }
        func line(
            _ bench: String, _ measure: String, _ round: Int, ours: Double, baseline: Double?, goal: Double?,
            higher: Bool = false
        ) throws -> String {
            var record: [String: Any] = [
                "bench": bench, "measure": measure, "unit": "us", "ours": ours, "round": round,
                "higherIsBetter": higher,
            ]
            if let baseline { record["baseline"] = baseline; record["baselineName"] = "peer" }
            if let goal { record["goal"] = goal }
            let data = try JSONSerialization.data(withJSONObject: record)
            return String(decoding: data, as: UTF8.self)
        }
        // Ratios 4, 2, 3 (median 3, missing ≤ 1.5); throughput 0.9, 1.0, 0.96 (median 0.96,
        // meeting ≥ 0.95); idle switches 1, 0, 0 with no peer (median 0, meeting 0).
        let raw = try [
            line("ipc", "round trip p50", 1, ours: 40, baseline: 10, goal: 1.5),
            line("transfer", "download", 1, ours: 90, baseline: 100, goal: 0.95, higher: true),
            line("lifecycle", "idle switches", 1, ours: 1, baseline: nil, goal: 0),
            line("ipc", "round trip p50", 2, ours: 20, baseline: 10, goal: 1.5),
            line("transfer", "download", 2, ours: 100, baseline: 100, goal: 0.95, higher: true),
            line("lifecycle", "idle switches", 2, ours: 0, baseline: nil, goal: 0),
            line("ipc", "round trip p50", 3, ours: 33, baseline: 11, goal: 1.5),
            line("transfer", "download", 3, ours: 96, baseline: 100, goal: 0.95, higher: true),
            line("lifecycle", "idle switches", 3, ours: 0, baseline: nil, goal: 0),
        ]
        try (raw.joined(separator: "\n") + "\n").write(
            toFile: directory.appending("raw.jsonl"), atomically: true, encoding: .utf8)

        let run = try await CLIRun.run(
            "/usr/bin/python3",
            [
                Locations.repositoryRoot + "/scripts/lib/bench-report.py", directory.path, "--rounds", "3",
                "--quick", "0", "--commit", "abc1234",
            ])
        #expect(run.status == 0, "\(run)")

        let results = try #require(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: directory.appending("results.json"))))
                as? [String: Any])
        let measures = try #require(results["measures"] as? [[String: Any]])
        func measure(_ name: String) -> [String: Any]? { measures.first { $0["measure"] as? String == name } }
        let ipc = try #require(measure("round trip p50"))
        #expect(ipc["ratio"] as? Double == 3)
        #expect(ipc["spread"] as? [Double] == [2, 4])
        #expect(ipc["met"] as? Bool == false)
        let transfer = try #require(measure("download"))
        #expect((transfer["ratio"] as? Double).map { abs($0 - 0.96) < 1e-9 } == true, "\(transfer)")
        #expect(transfer["met"] as? Bool == true)
        let idle = try #require(measure("idle switches"))
        #expect(idle["value"] as? Double == 0)
        #expect(idle["met"] as? Bool == true)

        let table = try String(contentsOfFile: directory.appending("results.md"), encoding: .utf8)
        #expect(
            table.contains("| ipc | round trip p50 | peer: 10 us | 33 us | 3x (2–4) | ≤ 1.5x | **no** |"), "\(table)")
        let history = try String(contentsOfFile: directory.appending("history.md"), encoding: .utf8)
        #expect(history.contains("abc1234") && history.contains("| ipc: round trip p50 | 3 |"), "\(history)")
    }
}
