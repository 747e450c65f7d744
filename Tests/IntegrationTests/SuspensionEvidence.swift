import BackgrounderTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the kernel says about a suspended app, for checks that can fail: CPU time is read
/// from processes that spin (the `spin` TestApp behaviour, or a `SpinningWitness`), so an
/// idle process cannot pass for a frozen one, and every "it stays still" comes with the
/// control that the same processes do move while they are not suspended.
enum SuspensionEvidence {
    /// utime + stime of a process in clock ticks (fields 14 and 15 of /proc/PID/stat), or
    /// `nil` once it is gone.
    static func ticks(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The state letter of /proc/PID/stat (`T` for stopped), or `nil` once it is gone.
    static func state(_ pid: Int32) -> Character? {
        ProcessStatLetter.of(pid)
    }

    /// The cgroup v2 directory a process is in (the cgroup2 mount and its `0::` line).
    static func cgroupDirectory(of pid: Int32) -> String? {
        guard let membership = try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8),
            let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") }),
            let mount = LifecycleTests.cgroup2Mount()
        else { return nil }
        return mount + line.dropFirst(3)
    }

    /// Whether the `cgroup.events` of the process's cgroup says `frozen 1`: the kernel's word
    /// that every process in it is frozen.
    static func cgroupFrozen(_ pid: Int32) -> Bool {
        guard let directory = cgroupDirectory(of: pid),
            let events = try? String(contentsOfFile: directory + "/cgroup.events", encoding: .utf8)
        else { return false }
        return events.split(separator: "\n").contains("frozen 1")
    }

    /// Waits for the kernel's word that the processes' cgroups are frozen: the daemon reports
    /// an app suspended once it has asked for the freeze, and the kernel completes it after.
    static func becomeFrozen(_ pids: Int32...) async -> Bool {
        await waitUntil { pids.allSatisfy(cgroupFrozen) }
    }

    /// The control: waits until every process's CPU time has moved past a first reading.
    /// Processes that spin move within a few ticks even on a loaded machine; the deadline only
    /// catches one that never runs.
    static func advance(_ pids: [Int32], timeout: Duration = .seconds(30)) async -> Bool {
        let first = pids.map { ticks($0) }
        return await waitUntil(timeout: timeout) {
            zip(pids, first).allSatisfy { pid, before in
                guard let before, let now = ticks(pid) else { return false }
                return now > before
            }
        }
    }

    /// The check: the processes' CPU time over `window`, as `pid: before -> after` for each
    /// that moved (or vanished); empty when none did. A frozen process never runs, so a
    /// loaded machine cannot make this pass or fail.
    static func movement(_ pids: [Int32], over window: Duration = .seconds(2)) async -> [String] {
        let before = pids.map { ticks($0) }
        try? await Task.sleep(for: window)
        return zip(pids, before).compactMap { pid, before in
            let after = ticks(pid)
            return before != nil && after == before
                ? nil : "\(pid): \(before.map(String.init) ?? "gone") -> \(after.map(String.init) ?? "gone")"
        }
    }

    /// The `spinning child PID` line a `spin` app prints.
    static func spinningChild(in log: String) -> Int32? {
        log.split(separator: "\n").lazy.compactMap { line -> Int32? in
            line.hasPrefix("spinning child ") ? Int32(line.dropFirst("spinning child ".count)) : nil
        }.first
    }
}

/// A process the test starts and moves into an app's cgroup that spins for as long as it
/// runs: the busy process a sample app that idles when suspended (a paused player) lacks.
/// Under the freezer it is frozen and thawed with the app; the daemon's `cgroup.kill` or
/// `stop()` ends it.
struct SpinningWitness {
    let process: ChildProcess

    /// Starts the witness and moves it into `cgroup` (a directory with `cgroup.procs`).
    init(joining cgroup: String, logPath: String) throws {
        process = try ChildProcess("/bin/sh", ["-c", "while :; do :; done"], logPath: logPath)
        try "\(process.pid)\n".write(toFile: cgroup + "/cgroup.procs", atomically: false, encoding: .utf8)
    }

    var pid: Int32 { process.pid }

    /// SIGKILL, which reaches a frozen process (SIGTERM would wait for the thaw).
    func stop() async {
        process.signal(SIGKILL)
        await process.waitForExit(timeout: .seconds(10))
    }
}
