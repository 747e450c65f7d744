import ArgumentParser
import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderDaemon
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's per-fix store write with `synchronous=NORMAL` beside `FULL`, same run, same
/// filesystem (docs/decisions/0008-state-durability.md).
struct StoreWrites: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Time per queued fix in the state store: synchronous=NORMAL vs FULL (WAL mode)."
    )

    @Option(help: "Where the scratch databases go: put it on the filesystem the state directory uses.")
    var directory = NSTemporaryDirectory()
    @Option(help: "Fixes queued per setting.") var fixes = 2_000
    @Option(help: "Alternating rounds per setting, so drift in the machine's load hits both.") var rounds = 3

    func run() throws {
        let base = directory + "/bgbench-store-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: base) }
        var samples: [StoreSynchronous: [Double]] = [:]
        for round in 0..<rounds {
            for setting in StoreSynchronous.allCases {
                let path = "\(base)/\(setting.rawValue.lowercased())-\(round)"
                samples[setting, default: []] += try QueueWriteProbe.microsecondsPerFix(
                    directory: path, synchronous: setting, count: fixes)
            }
        }
        print("State store, one queued fix per transaction (WAL), \(rounds) x \(fixes) fixes each, in \(directory)")
        print("synchronous   p50 us    p99 us   mean us   fixes/s")
        for setting in StoreSynchronous.allCases {
            let values = samples[setting] ?? []
            let stats = Percentiles(values)
            let mean = values.reduce(0, +) / Double(max(1, values.count))
            print(
                setting.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
                    + String(format: "%9.1f %9.1f %9.1f %9.0f", stats.p50, stats.p99, mean, 1e6 / mean))
        }
        if let normal = samples[.normal], let full = samples[.full] {
            print(String(format: "ratio (FULL / NORMAL) p50 %.2fx", Percentiles(full).p50 / Percentiles(normal).p50))
        }
    }
}
