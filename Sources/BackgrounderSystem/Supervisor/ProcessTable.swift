import Foundation

/// One reading of every process in /proc (parent, session, state), for finding an app's
/// processes by their family under the signals mechanism, where no cgroup holds them.
///
/// A scan of /proc: read when an app is suspended, resumed or ended, never on a timer.
package struct ProcessTable: Sendable {
    /// Each live process's stat line, by pid.
    package let processes: [Int32: ProcessStat]

    /// Reads every process now.
    package static func read() -> ProcessTable {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        var processes: [Int32: ProcessStat] = [:]
        for entry in entries {
            guard let pid = Int32(entry), let stat = ProcessStat.read(pid) else { continue }
            processes[pid] = stat
        }
        return ProcessTable(processes: processes)
    }

    /// The processes of a session.
    package func members(ofSession session: Int32) -> Set<Int32> {
        Set(processes.filter { $0.value.session == session }.keys)
    }

    /// Every process of the app led by `leader`: its session, the orphans of it the daemon
    /// adopted (they keep the session), and everything descended from them.
    package func family(ofLeader leader: Int32) -> Set<Int32> {
        descendants(of: members(ofSession: leader).union([leader]))
    }

    /// The roots and everything descended from them, by parent links.
    package func descendants(of roots: Set<Int32>) -> Set<Int32> {
        var children: [Int32: [Int32]] = [:]
        for (pid, stat) in processes { children[stat.parent, default: []].append(pid) }
        var found = Set<Int32>()
        var pending = Array(roots.filter { processes[$0] != nil })
        while let pid = pending.popLast() {
            guard found.insert(pid).inserted else { continue }
            pending.append(contentsOf: children[pid] ?? [])
        }
        return found
    }

    /// Whether the process runs no code: stopped, traced, or already dead.
    package func isStopped(_ pid: Int32) -> Bool {
        guard let state = processes[pid]?.state else { return true }
        return "TtZX".contains(state)
    }

    /// Whether the process is dead or gone (a zombie only waits to be reaped).
    package func isDead(_ pid: Int32) -> Bool {
        guard let state = processes[pid]?.state else { return true }
        return state == "Z" || state == "X"
    }
}
