import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Event to delegate callback for relaunching a terminated app, beside a plain fork/exec of
/// the same binary to its main, in one run; optionally beside a second daemon started with
/// `--sandbox off`, relaunches alternating between the two so drift hits both alike.
struct Relaunch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Relaunch latency: a push to a terminated app until its didFinishLaunching, vs fork/exec."
    )

    @Option(help: "The running daemon's socket.") var socket: String
    @Option(help: "A bundle with the remote-notification mode whose app prints 'launched push t=NS' (TestApp).")
    var bundle: String
    @Option(help: "The app's log file (STATE/logs/ID.log).") var appLog: String
    @Option(help: "The app's executable, for the fork/exec baseline.") var executable: String
    @Option(help: "Relaunches to measure.") var count = 30
    @Option(help: "A second daemon's socket, started with --sandbox off, with the same bundle.")
    var offSocket: String?
    @Option(help: "The app's log file under the second daemon.") var offAppLog: String?

    func run() throws {
        var baseline: [Double] = []
        for _ in 0..<count {
            let output = NSTemporaryDirectory() + "bgbench-exec-\(getpid()).log"
            unlink(output)
            let sent = realtimeNanoseconds()
            let pid = try spawnDetached([executable], environment: ["BGBENCH_EXEC_BASELINE": "1"], output: output)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            unlink(output)
            guard
                let stamp = text.split(separator: "=").last.flatMap({
                    Int64($0.trimmingCharacters(in: .whitespacesAndNewlines))
                })
            else { throw BenchError("the baseline printed no time: \(text)") }
            baseline.append(Double(stamp - sent) / 1000)
        }

        let client = try ControlClient(socketPath: socket)
        let offClient = try offSocket.map { try ControlClient(socketPath: $0) }
        if offClient != nil && offAppLog == nil { throw BenchError("--off-socket needs --off-app-log") }
        var samples: [Sample] = []
        var unsandboxed: [Double] = []
        for _ in 0..<count {
            samples.append(try relaunchOnce(client, appLog: appLog))
            if let offClient, let offAppLog { unsandboxed.append(try relaunchOnce(offClient, appLog: offAppLog).total) }
        }
        let relaunch = samples.map(\.total)
        let exec = Percentiles(baseline)
        let daemon = Percentiles(relaunch)
        print("relaunch for an event, \(count) times")
        print(String(format: "fork/exec to main        p50 %9.1f us   p99 %9.1f us", exec.p50, exec.p99))
        print(String(format: "push to didFinishLaunch  p50 %9.1f us   p99 %9.1f us", daemon.p50, daemon.p99))
        print(
            String(
                format: "ratio                    p50 %9.2fx     p99 %9.2fx", daemon.p50 / exec.p50,
                daemon.p99 / exec.p99))
        for (name, ours, peer) in [("p50", daemon.p50, exec.p50), ("p99", daemon.p99, exec.p99)] {
            BenchRecord(
                bench: "relaunch", measure: "event to didFinishLaunching \(name)", unit: "us",
                baselineName: "fork/exec",
                baseline: peer, ours: ours, goal: name == "p50" ? 1.5 : nil
            ).append()
        }
        BenchRecord.samples(relaunch, named: "relaunch-backgrounderd")
        BenchRecord.samples(baseline, named: "relaunch-fork-exec")
        if !unsandboxed.isEmpty {
            let off = Percentiles(unsandboxed)
            BenchRecord(
                bench: "relaunch", measure: "sandbox cost p50", unit: "us", baselineName: "--sandbox off",
                baseline: off.p50, ours: daemon.p50
            ).append()
            print(String(format: "  same, --sandbox off    p50 %9.1f us   p99 %9.1f us", off.p50, off.p99))
            print(
                String(
                    format: "sandbox cost             p50 %9.1f us (%+.1f%%)", daemon.p50 - off.p50,
                    (daemon.p50 / off.p50 - 1) * 100))
        }
        // Where the time goes: the daemon and the kernel up to the app's main, then the app's
        // own start (its runtime, BackgroundKit's check-in) to didFinishLaunching.
        let toMain = samples.compactMap(\.toMain)
        if toMain.count == samples.count, !toMain.isEmpty {
            let before = Percentiles(toMain)
            let after = Percentiles(samples.map { $0.total - ($0.toMain ?? 0) })
            print(String(format: "  push to main           p50 %9.1f us   p99 %9.1f us", before.p50, before.p99))
            print(String(format: "  main to didFinishLaunch p50 %8.1f us   p99 %9.1f us", after.p50, after.p99))
            BenchRecord(
                bench: "relaunch", measure: "event to main p50", unit: "us", baselineName: "fork/exec",
                baseline: exec.p50, ours: before.p50
            ).append()
        }
    }

    /// One relaunch, in microseconds: from the push to the app's didFinishLaunching, and, when
    /// the app stamps its main (TestApp's `TestAppStampsMain`), from the push to main.
    struct Sample {
        var total: Double
        var toMain: Double?
    }

    /// Ends the app as the system would (memory pressure, not a force quit), sends a push,
    /// and times the relaunch.
    private func relaunchOnce(_ client: ControlClient, appLog: String) throws -> Sample {
        _ = try client.request(.memoryPressure(MemoryPressure(critical: true)))
        try waitUntilNotRunning(client)
        let before = (try? String(contentsOfFile: appLog, encoding: .utf8))?.count ?? 0
        let sent = realtimeNanoseconds()
        guard case .done = try client.request(.wake(WakeRequest(bundle: BundleID(bundle), reason: .push))).body else {
            throw BenchError("the push was refused")
        }
        let stamps = try waitForLaunchStamp(in: appLog, after: before)
        return Sample(
            total: Double(stamps.launched - sent) / 1000, toMain: stamps.main.map { Double($0 - sent) / 1000 })
    }

    private func realtimeNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private func waitUntilNotRunning(_ client: ControlClient) throws {
        for _ in 0..<2000 {
            if case .apps(let list) = try client.request(.ps).body,
                list.apps.first(where: { $0.id.rawValue == bundle })?.state == .notRunning
            {
                return
            }
            usleep(2000)
        }
        throw BenchError("\(bundle) did not stop")
    }

    /// Reads the app log until a new "launched push t=NS" line appears (polled every 0.5 ms;
    /// the poll adds at most that to each sample), with the "main t=NS" before it, if any.
    private func waitForLaunchStamp(in appLog: String, after offset: Int) throws -> (launched: Int64, main: Int64?) {
        func stamp(_ lines: [Substring], _ prefix: String) -> Int64? {
            lines.first { $0.hasPrefix(prefix) }.flatMap { Int64($0.dropFirst(prefix.count)) }
        }
        for _ in 0..<20_000 {
            if let text = try? String(contentsOfFile: appLog, encoding: .utf8), text.count > offset {
                // The app's own lines, after the daemon's stamps (AppLogFormat).
                let lines = text.dropFirst(offset).split(separator: "\n").map { AppLogFormat.parse($0).text }
                if let launched = stamp(lines, "launched push t=") {
                    return (launched, stamp(lines, "main t="))
                }
            }
            usleep(500)
        }
        throw BenchError("the app never said it launched")
    }
}
