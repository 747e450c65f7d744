import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The parts of /proc/PID/stat the supervisor reads: state, parent and CPU time.
package struct ProcessStat: Sendable {
    /// One letter: R running, S sleeping, T stopped, Z zombie...
    package var state: Character
    /// The parent's pid.
    package var parent: Int32
    /// The session it belongs to.
    package var session: Int32
    /// utime + stime, in seconds.
    package var cpuSeconds: Double
    /// When the process started, in clock ticks after boot: with the pid, it names one
    /// process for good (a reused pid has a later start).
    package var startTicks: UInt64

    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Resident memory of a process in bytes (/proc/PID/statm), or 0 when it is gone.
    package static func residentBytes(_ pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Every process of the app led by `leader`, found by family
    /// (``ProcessTable/family(ofLeader:)``; a scan of /proc: for memory pressure and
    /// adoption, not a hot path).
    package static func family(ofLeader leader: Int32) -> [Int32] {
        Array(ProcessTable.read().family(ofLeader: leader))
    }

    /// Reads a process's stat line, or `nil` when it is gone.
    package static func read(_ pid: Int32) -> ProcessStat? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // The command name may hold spaces and parentheses: fields start after the last ')'.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let state = fields[0].first, let parent = Int32(fields[1]),
            let session = Int32(fields[3]),
            let user = Double(fields[11]), let system = Double(fields[12]), let start = UInt64(fields[19])
        else { return nil }
        return ProcessStat(
            state: state, parent: parent, session: session, cpuSeconds: (user + system) / ticksPerSecond,
            startTicks: start)
    }
}
