import Foundation

/// Context switches of every thread of a process, from /proc/PID/task/TID/status: a thread
/// asleep in the kernel makes none, so any switch over a window is a wakeup (its own timer,
/// a poll that returned, work handed to it).
public struct ThreadWakeups: Sendable {
    /// Switches so far, by thread id, with the thread's name.
    public let threads: [Int32: (name: String, switches: Int)]

    /// Reads every thread of `pid` now.
    public init(pid: Int32) {
        var threads: [Int32: (name: String, switches: Int)] = [:]
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            guard let tid = Int32(task),
                let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
            else { continue }
            var name = "?"
            var switches = 0
            for line in status.split(separator: "\n") {
                let fields = line.split(separator: "\t", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard fields.count == 2 else { continue }
                switch fields[0] {
                case "Name:": name = fields[1]
                case "voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:": switches += Int(fields[1]) ?? 0
                default: break
                }
            }
            threads[tid] = (name, switches)
        }
        self.threads = threads
    }

    /// The threads that switched since `earlier`, with how often: a thread that appeared
    /// counts all its switches (making it was a wakeup too).
    public func since(_ earlier: ThreadWakeups) -> [(tid: Int32, name: String, switches: Int)] {
        threads.compactMap { tid, now in
            let switches = now.switches - (earlier.threads[tid]?.switches ?? 0)
            return switches > 0 ? (tid, now.name, switches) : nil
        }
        .sorted { $0.tid < $1.tid }
    }
}
