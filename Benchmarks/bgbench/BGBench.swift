import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Benchmarks that run Backgrounder beside a plain peer in the same run and print the ratio.
@main
struct BGBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bgbench",
        abstract: "Backgrounder benchmarks, each beside a baseline measured in the same run.",
        subcommands: [
            IPCRoundTrip.self, FreezeThaw.self, Relaunch.self, Filters.self, StoreWrites.self, Schedule.self,
            EchoServer.self, Transfer.self,
        ]
    )
}

/// Round trips of a HELLO over the daemon's socket against a plain echo server that answers
/// the same request with a reply of the same size, both in separate processes.
struct IPCRoundTrip: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ipc",
        abstract: "IPC round trip p50/p99: the daemon vs a plain Unix-socket echo."
    )

    @Option(help: "The running daemon's socket.")
    var socket: String = DefaultPaths.socket

    @Option(help: "Round trips per side.")
    var count = 20_000

    @Option(help: "Warm-up round trips per side, not measured.")
    var warmup = 2_000

    @Option(help: "The daemon's pid, to report its CPU time per round trip.")
    var daemonPID: Int32?

    @Option(help: "Where the processes ran (\"one CPU\" when pinned), added to each measure's name.")
    var placement: String?

    func run() throws {
        let request = Array(#"{"class":"HELLO","id":1,"protocol":1}"#.utf8) + [UInt8(ascii: "\n")]

        let daemon = try LineSocket(path: socket)
        _ = try daemon.readLine()  // the VERSION greeting
        let replySize = try daemon.roundTrip(request).count

        let echoPath = NSTemporaryDirectory() + "bgbench-echo-\(getpid()).sock"
        let echo = Process()
        echo.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        if !FileManager.default.isExecutableFile(atPath: echo.executableURL!.path) {
            echo.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        }
        echo.arguments = ["echo", "--socket", echoPath, "--reply-bytes", "\(replySize)"]
        try echo.run()
        defer {
            echo.terminate()
            echo.waitUntilExit()
            unlink(echoPath)
        }
        var baseline: LineSocket?
        for _ in 0..<200 where baseline == nil {
            baseline = try? LineSocket(path: echoPath)
            if baseline == nil { usleep(10_000) }
        }
        guard let baseline else { throw ValidationError("the echo server did not start") }

        for _ in 0..<warmup {
            _ = try baseline.roundTrip(request)
            _ = try daemon.roundTrip(request)
        }
        // The daemon is idle while the echo is measured, so its CPU over both is its own.
        let cpuBefore = daemonPID.map(ProcessCPU.seconds)
        let (echoSamples, daemonSamples) = try measureInterleaved(baseline, daemon, request)
        let cpuAfter = daemonPID.map(ProcessCPU.seconds)
        let echoStats = Percentiles(echoSamples)
        let daemonStats = Percentiles(daemonSamples)
        print("IPC round trip, \(count) requests of \(request.count) bytes, replies of \(replySize) bytes")
        print(
            String(
                format: "%-22@ p50 %8.1f us   p99 %8.1f us", "plain Unix-socket echo" as NSString, echoStats.p50,
                echoStats.p99))
        print(
            String(
                format: "%-22@ p50 %8.1f us   p99 %8.1f us", "backgrounderd HELLO" as NSString, daemonStats.p50,
                daemonStats.p99))
        print(
            String(
                format: "ratio (daemon / echo)  p50 %8.2fx     p99 %8.2fx", daemonStats.p50 / echoStats.p50,
                daemonStats.p99 / echoStats.p99))
        let suffix = placement.map { ", \($0)" } ?? ""
        for (name, ours, peer) in [
            ("round trip p50\(suffix)", daemonStats.p50, echoStats.p50),
            ("round trip p99\(suffix)", daemonStats.p99, echoStats.p99),
        ] {
            BenchRecord(
                bench: "ipc", measure: name, unit: "us", baselineName: "Unix-socket echo", baseline: peer, ours: ours,
                goal: name.contains("p50") ? 1.5 : nil
            ).append()
        }
        let tag = placement == nil ? "" : "-pinned"
        BenchRecord.samples(daemonSamples, named: "ipc-backgrounderd\(tag)")
        BenchRecord.samples(echoSamples, named: "ipc-echo\(tag)")
        if let cpuBefore, let cpuAfter {
            // Clock ticks (10 ms) over the measured round trips: coarse per run, exact enough
            // over 20,000 of them.
            let perTrip = (cpuAfter - cpuBefore) * 1e6 / Double(count)
            print(String(format: "daemon CPU per round trip %8.1f us", perTrip))
            BenchRecord(bench: "ipc", measure: "daemon CPU per round trip\(suffix)", unit: "us", ours: perTrip).append()
        }
    }

    /// Round trips to both sides in alternating blocks of 100, so that whatever else the
    /// machine does (another process, a frequency change) falls on both alike: measured one
    /// side after the other, the ratio moved between 1.6x and 4x from run to run.
    private func measureInterleaved(
        _ baseline: LineSocket, _ daemon: LineSocket, _ request: [UInt8]
    ) throws -> (baseline: [Double], daemon: [Double]) {
        var baselineSamples: [Double] = []
        var daemonSamples: [Double] = []
        baselineSamples.reserveCapacity(count)
        daemonSamples.reserveCapacity(count)
        while daemonSamples.count < count {
            let block = min(100, count - daemonSamples.count)
            for _ in 0..<block { baselineSamples.append(try timedRoundTrip(baseline, request)) }
            for _ in 0..<block { daemonSamples.append(try timedRoundTrip(daemon, request)) }
        }
        return (baselineSamples, daemonSamples)
    }

    /// One round trip, in microseconds.
    private func timedRoundTrip(_ socket: LineSocket, _ request: [UInt8]) throws -> Double {
        let start = ContinuousClock.now
        _ = try socket.roundTrip(request)
        return (ContinuousClock.now - start).seconds * 1e6
    }
}

/// p50 and p99 of samples in microseconds.
struct Percentiles {
    var p50: Double
    var p99: Double

    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        p50 = sorted[sorted.count / 2]
        p99 = sorted[min(sorted.count - 1, sorted.count * 99 / 100)]
    }
}

/// The baseline: answers every line with a fixed reply of the daemon's reply size.
struct EchoServer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "echo", abstract: "Run the baseline echo server.", shouldDisplay: false)

    @Option var socket: String
    @Option(name: .customLong("reply-bytes")) var replyBytes: Int

    func run() throws {
        let listener = try LineSocket.listen(path: socket)
        let reply = [UInt8](repeating: UInt8(ascii: "x"), count: max(1, replyBytes - 1)) + [UInt8(ascii: "\n")]
        while true {
            let client = try listener.accept()
            while let _ = try? client.readLine() {
                try client.writeAll(reply)
            }
        }
    }
}
