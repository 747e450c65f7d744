import Foundation

/// One measure beside its baseline, as `scripts/bench.sh` collects them: when
/// `BENCH_RESULTS` names a file, each benchmark appends a JSON line per measure to it (and,
/// with `BENCH_SAMPLES`, writes its raw samples there for the latency plots). Without them a
/// benchmark only prints, as before.
struct BenchRecord: Encodable {
    /// Which benchmark (`ipc`, `relaunch`, ...): the plots and the table group by it.
    var bench: String
    /// What was measured, e.g. `round trip p50`.
    var measure: String
    /// The unit of `ours` and `baseline`.
    var unit: String
    /// The peer measured in the same run (`pacat`, `curl -o`), if there is one.
    var baselineName: String?
    var baseline: Double?
    var ours: Double
    /// True for throughput: the ratio ours/baseline should be high, not low.
    var higherIsBetter = false
    /// The goal for the ratio (or for `ours` when there is no baseline).
    var goal: Double?
    /// Which round of `bench.sh` this is (`BENCH_ROUND`).
    var round = BenchRecord.round

    static var round: Int { Int(ProcessInfo.processInfo.environment["BENCH_ROUND"] ?? "") ?? 1 }

    /// Appends this record to `BENCH_RESULTS`, if set.
    func append() {
        guard let path = ProcessInfo.processInfo.environment["BENCH_RESULTS"], !path.isEmpty else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard var line = try? encoder.encode(self) else { return }
        line.append(UInt8(ascii: "\n"))
        Self.appendData(line, to: path)
    }

    /// Writes samples, one per line, as `BENCH_SAMPLES/NAME-roundN.txt`, if set.
    static func samples(_ samples: [Double], named name: String) {
        guard let directory = ProcessInfo.processInfo.environment["BENCH_SAMPLES"], !directory.isEmpty else {
            return
        }
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = samples.map { String(format: "%.3f", $0) }.joined(separator: "\n") + "\n"
        try? Data(text.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name)-round\(round).txt"))
    }

    private static func appendData(_ data: Data, to path: String) {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: data)
    }
}
