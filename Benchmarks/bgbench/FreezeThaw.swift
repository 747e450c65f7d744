import ArgumentParser
import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
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

/// Freeze and thaw N apps, with the cgroup v2 freezer and with signals, in one run.
struct FreezeThaw: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "freeze",
        abstract: "Freeze+thaw round trip for 1, 10 and 100 apps: cgroup freezer and SIGSTOP/SIGCONT."
    )

    @Option(help: "App counts, comma separated.") var apps = "1,10,100"
    @Option(help: "Round trips per count.") var rounds = 30

    func run() async throws {
        let counts = apps.split(separator: ",").compactMap { Int($0) }
        var mechanisms: [any SuspensionMechanism] = [SignalFreezer()]
        switch CgroupFreezer.discover(stateDirectory: "/tmp/bgbench-freeze-\(getpid())") {
        case .success(let freezer): mechanisms.insert(freezer, at: 0)
        case .failure(let reason): print("cgroup freezer unavailable: \(reason)")
        }
        print("mechanism  apps  p50 round trip   p99 round trip   p50 per app")
        for mechanism in mechanisms {
            for count in counts {
                let samples = try await measure(mechanism, apps: count)
                let stats = Percentiles(samples)
                print(
                    String(
                        format: "%-9@ %5d  %10.1f us    %10.1f us    %8.1f us", mechanism.name as NSString, count,
                        stats.p50, stats.p99, stats.p50 / Double(count)))
            }
            (mechanism as? CgroupFreezer)?.removeBase()
        }
    }

    /// Each app is a shell that wakes once a second (forking `sleep`), as a mostly idle app does.
    private func measure(_ mechanism: any SuspensionMechanism, apps count: Int) async throws -> [Double] {
        var running: [(Int32, AppContainer)] = []
        defer {
            for (pid, container) in running {
                try? mechanism.kill(container, leader: pid)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                mechanism.release(container)
            }
        }
        for index in 0..<count {
            let container = try mechanism.prepare(appID: BundleID("bench\(index)"))
            let join = container.cgroupPath.map { "echo $$ > '\($0)/cgroup.procs' || exit 126" }
            let script = [join, "while sleep 1; do :; done"].compactMap { $0 }.joined(separator: "\n")
            running.append((try spawnDetached(["/bin/sh", "-c", script]), container))
        }
        usleep(200_000)
        var samples: [Double] = []
        for _ in 0..<rounds {
            let start = ContinuousClock.now
            for (pid, container) in running { try mechanism.freeze(container, leader: pid) }
            // Asked of all, then waited for: as the daemon does, off its actor.
            for (pid, container) in running { _ = try await mechanism.waitUntilFrozen(container, leader: pid) }
            for (pid, container) in running { try mechanism.thaw(container, leader: pid) }
            samples.append(microseconds(since: start))
        }
        return samples
    }
}
