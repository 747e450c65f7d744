import ArgumentParser
import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A large download over loopback by the daemon, beside `curl -o` of the same file from the
/// same server in the same run: throughput and CPU, and the daemon's resident memory before
/// and after (it streams to disk, so it should not grow with the file).
struct Transfer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Background download throughput, CPU and peak RSS beside curl -o (run via scripts/bench-transfer.sh)."
    )

    @Option(help: "Mebibytes to download.") var megabytes: Int64 = 1024
    @Option(help: "Rounds, alternating curl and the daemon.") var rounds = 2

    func run() async throws {
        let bytes = megabytes << 20
        let directory = try TemporaryDirectory(prefix: "bench-transfer")
        defer { directory.remove() }
        let served = directory.appending("served.bin")
        try TransferServer.makeFile(at: served, bytes: bytes, seed: 3)
        let server = try TransferServer()
        try server.serve(path: "/big.bin", file: served)
        let url = server.url("/big.bin")

        let bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let id = try PythonAppBundles.make(
            "Bench",
            script: PythonAppBundles.transferPrelude + """

                def fetch():
                    create("\(url)")
                    serve()
                fetch()
                """, into: bundles)
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: ["--log-level", "notice"])
        let client = try daemon.client()
        let idle = Memory.of(daemon.pid)

        var curl: [Run] = []
        var ours: [Run] = []
        for round in 0..<rounds {
            curl.append(try Self.curl(url, to: directory.appending("curl-\(round).out")))
            unlink(directory.appending("curl-\(round).out"))
            ours.append(try await Self.daemon(client, daemon: daemon, app: BundleID(id), bytes: bytes))
        }
        let peak = Memory.of(daemon.pid)
        await daemon.stop()
        await server.shutdown()

        let mib = Double(bytes) / Double(1 << 20)
        print("download of \(megabytes) MiB over loopback, \(rounds) rounds (best of each)")
        let bestCurl = curl.max { $0.throughput(mib) < $1.throughput(mib) }!
        let bestOurs = ours.max { $0.throughput(mib) < $1.throughput(mib) }!
        for (name, run) in [("curl -o", bestCurl), ("backgrounderd", bestOurs)] {
            print(
                String(
                    format: "%-14@ %8.1f MiB/s   %6.2f s   CPU %6.2f s (%.2f s per GiB)", name as NSString,
                    run.throughput(mib), run.seconds, run.cpu, run.cpu / (mib / 1024)))
        }
        print(
            String(
                format: "throughput ratio (daemon / curl): %.2fx (goal >= 0.95x)",
                bestOurs.throughput(mib) / bestCurl.throughput(mib)))
        print(
            String(
                format: "daemon RSS: idle %.1f MiB, after the downloads %.1f MiB; peak (VmHWM) %.1f MiB",
                idle.resident, peak.resident, peak.peak))
        BenchRecord(
            bench: "transfer", measure: "download \(megabytes) MiB", unit: "MiB/s", baselineName: "curl -o",
            baseline: bestCurl.throughput(mib), ours: bestOurs.throughput(mib), higherIsBetter: true, goal: 0.95
        ).append()
        BenchRecord(
            bench: "transfer", measure: "CPU per GiB", unit: "s", baselineName: "curl -o",
            baseline: bestCurl.cpu / (mib / 1024), ours: bestOurs.cpu / (mib / 1024)
        ).append()
        BenchRecord(
            bench: "transfer", measure: "daemon RSS growth", unit: "MiB", baselineName: "idle daemon",
            baseline: idle.resident, ours: peak.peak
        ).append()
    }

    struct Run {
        var seconds: Double
        var cpu: Double
        func throughput(_ mib: Double) -> Double { mib / seconds }
    }

    /// `curl -o FILE`: its wall time and CPU (user + system, from wait4).
    static func curl(_ url: String, to file: String) throws -> Run {
        let start = ContinuousClock.now
        var pid: pid_t = 0
        let arguments = ["curl", "-s", "-o", file, url]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        guard posix_spawnp(&pid, "curl", nil, nil, &argv, environ) == 0 else { throw BenchError("cannot run curl") }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        let seconds = (ContinuousClock.now - start).seconds
        guard status == 0 else { throw BenchError("curl failed with status \(status)") }
        return Run(seconds: seconds, cpu: usage.ru_utime.seconds + usage.ru_stime.seconds)
    }

    /// The daemon downloads the file for the app: from the moment the daemon lists the
    /// transfer (the app hands it over at launch; the launch is not the download's) until it
    /// reports it completed, polled every 5 ms; the daemon's CPU over that time.
    static func daemon(_ client: ControlClient, daemon: DaemonProcess, app: BundleID, bytes: Int64) async throws -> Run
    {
        _ = try client.request(.open(OpenApp(bundle: app)))
        var cpuBefore = ProcessCPU.seconds(daemon.pid)
        var start = ContinuousClock.now
        var done = false
        var seen = false
        while !done {
            try await Task.sleep(for: .milliseconds(5))
            guard case .transferList(let list) = try client.request(.transfers(TransferQuery(bundle: app))).body else {
                continue
            }
            if let failed = list.transfers.first(where: { $0.state == .failed }) {
                throw BenchError("the download failed: \(failed.error?.description ?? "?")")
            }
            // Completed, or already acknowledged by the app (gone from the list).
            done =
                list.transfers.contains { $0.state == .completed && $0.bytesReceived == bytes }
                || (seen && list.transfers.isEmpty)
            if !seen && !list.transfers.isEmpty {
                seen = true
                start = .now
                cpuBefore = ProcessCPU.seconds(daemon.pid)
            }
        }
        let seconds = (ContinuousClock.now - start).seconds
        let cpu = ProcessCPU.seconds(daemon.pid) - cpuBefore
        // The next round launches it again, and it asks again.
        try await Task.sleep(for: .milliseconds(300))
        _ = try client.request(.quit(AppReference(bundle: app)))
        try await Task.sleep(for: .milliseconds(500))
        return Run(seconds: seconds, cpu: cpu)
    }
}

/// A process's resident memory now and at its peak (`/proc/PID/status`).
struct Memory {
    var resident: Double
    var peak: Double

    static func of(_ pid: Int32) -> Memory {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            let line = text.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
        }
        return Memory(resident: field("VmRSS"), peak: field("VmHWM"))
    }
}

/// A process's CPU time (user + system) from `/proc/PID/stat`, in seconds.
enum ProcessCPU {
    static func seconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based, in clock ticks).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

extension timeval {
    var seconds: Double { Double(tv_sec) + Double(tv_usec) / 1_000_000 }
}
