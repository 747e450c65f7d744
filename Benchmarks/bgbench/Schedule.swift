import ArgumentParser
import BackgrounderCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The scheduler over a simulated day of 20 apps with fetch and app-refresh requests
/// (``ScheduleSimulation/twentyApps(start:policy:)``), with one coalesced timer (the daemon's
/// ``WakeCoalescer``) beside one timer per app, in the same run: wake windows, work done, and
/// the CPU time of the scheduling decisions. The coalesced day runs twice: with the standard
/// policy (fetch and refresh may wait ``SchedulingPolicy/fetchTolerance``) and with one
/// tolerance for everything (``SchedulingPolicy/coalescingTolerance``).
struct Schedule: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Wake-ups and scheduling CPU over a simulated day of 20 apps: coalesced vs one timer per app."
    )

    @Option(help: "Simulated days per configuration, alternating, for the CPU time.") var rounds = 20
    @Option(help: "The fetch and refresh tolerance in seconds (default: the standard policy's).")
    var fetchTolerance: Double?

    func validate() throws {
        if let fetchTolerance, !(fetchTolerance.isFinite && fetchTolerance >= 0) {
            throw ValidationError("--fetch-tolerance: '\(fetchTolerance)' is not a number of seconds, 0 or more")
        }
        guard rounds > 0 else { throw ValidationError("--rounds: must be 1 or more, not \(rounds)") }
    }

    private struct Configuration {
        var name: String
        var simulation: ScheduleSimulation
        var mode: ScheduleSimulation.Mode
    }

    func run() throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var standard = SchedulingPolicy()
        if let fetchTolerance { standard.fetchTolerance = .milliseconds(Int64((fetchTolerance * 1000).rounded())) }
        var uniform = standard
        uniform.fetchTolerance = uniform.coalescingTolerance
        let configurations = [
            Configuration(
                name: "coalesced, fetch tolerance \(Int(standard.fetchTolerance.seconds)) s",
                simulation: .twentyApps(start: start, policy: standard), mode: .coalesced),
            Configuration(
                name: "coalesced, all \(Int(uniform.fetchTolerance.seconds)) s",
                simulation: .twentyApps(start: start, policy: uniform), mode: .coalesced),
            Configuration(
                name: "one timer per app", simulation: .twentyApps(start: start, policy: standard), mode: .timerPerApp),
        ]
        var outcomes: [ScheduleSimulation.Outcome?] = Array(repeating: nil, count: configurations.count)
        var cpu: [[Double]] = Array(repeating: [], count: configurations.count)
        // Alternating, so drift in the machine's load hits each alike.
        for _ in 0..<rounds {
            for (index, configuration) in configurations.enumerated() {
                let before = Self.threadCPUSeconds()
                outcomes[index] = configuration.simulation.run(configuration.mode)
                cpu[index].append(Self.threadCPUSeconds() - before)
            }
        }
        print(
            "Simulated day: 20 apps, background fetch + app-refresh requests, \(rounds) days per row "
                + "(CPU: median of the rounds, this thread)")
        print(
            "configuration                      wakes  runs  runs/wake  max/wake  decisions  CPU ms/day  us/decision")
        for (index, configuration) in configurations.enumerated() {
            guard let outcome = outcomes[index] else { continue }
            var perWake: [Date: Int] = [:]
            for run in outcome.runs { perWake[run.at, default: 0] += 1 }
            let median = Percentiles(cpu[index].map { $0 * 1e3 }).p50
            print(
                configuration.name.padding(toLength: 33, withPad: " ", startingAt: 0)
                    + String(
                        format: "%7d %5d %10.2f %9d %10d %11.3f %12.2f", outcome.wakes.count, outcome.runs.count,
                        Double(outcome.runs.count) / Double(max(1, outcome.wakes.count)), perWake.values.max() ?? 0,
                        outcome.decisions, median, median * 1e3 / Double(max(1, outcome.decisions))))
        }
        guard let separate = outcomes[2] else { return }
        for index in 0..<2 {
            guard let coalesced = outcomes[index] else { continue }
            let hours = (0..<24).map { hour in
                coalesced.wakes.filter { Int($0.timeIntervalSince(start) / 3600) == hour }.count
            }
            let late = coalesced.runs.map { $0.at.timeIntervalSince($0.dueSince) }.max() ?? 0
            print(
                "\(configurations[index].name): wake windows per hour \(hours.map(String.init).joined(separator: " "))")
            print(
                String(
                    format:
                        "  latest run %.0f s after due; ratio (one timer per app / coalesced) wakes %.2fx, CPU %.2fx",
                    late, Double(separate.wakes.count) / Double(max(1, coalesced.wakes.count)),
                    Percentiles(cpu[2]).p50 / max(1e-12, Percentiles(cpu[index]).p50)))
        }
    }

    /// CPU time this thread has used.
    static func threadCPUSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
