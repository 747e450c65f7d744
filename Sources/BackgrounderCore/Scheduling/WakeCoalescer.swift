public import Foundation

/// One piece of scheduled work for ``WakeCoalescer``: it may start at `earliest` or up to its
/// tolerance later.
public struct DueJob<ID: Hashable & Sendable>: Sendable, Hashable {
    /// What to start.
    public var id: ID
    /// The earliest moment it may start.
    public var earliest: Date
    /// How late it may start; `nil` means the tolerance given to the coalescer (fetch and
    /// app refresh use ``SchedulingPolicy/fetchTolerance``, other work
    /// ``SchedulingPolicy/coalescingTolerance``).
    public var tolerance: Duration?

    /// A job.
    public init(id: ID, earliest: Date, tolerance: Duration? = nil) {
        self.id = id
        self.earliest = earliest
        self.tolerance = tolerance
    }

    /// The last moment it may start, with `fallback` when it has no tolerance of its own.
    public func deadline(_ fallback: Duration) -> Date {
        earliest.addingTimeInterval(max(0, (tolerance ?? fallback).seconds))
    }
}

/// One timer for every app's scheduled work, so N apps due about together cost one wake-up.
///
/// Each job may run anywhere in `[earliest, earliest + tolerance]` (its own tolerance, or the
/// one given). The timer fires at the smallest `earliest + tolerance` (its deadline: the first
/// moment some job cannot wait any longer) and then
/// runs every job whose `earliest` has passed. This is the greedy algorithm for stabbing
/// intervals with points, which is optimal: the first deadline must be served by a wake at or
/// before it, and waking exactly at it serves every job any such wake could serve (and more,
/// since more `earliest`s have passed). Repeating it on what is left therefore gives the fewest
/// wake-ups for which every job still runs within its tolerance. With a tolerance of 0 it is one
/// wake per distinct due date, as separate timers would be.
public enum WakeCoalescer {
    /// When the timer should fire next, or `nil` with no job. May be in the past: fire at once.
    public static func nextWake<ID>(_ jobs: [DueJob<ID>], tolerance: Duration) -> Date? {
        jobs.lazy.map { $0.deadline(tolerance) }.min()
    }

    /// The jobs to run at a wake at `date`: every one whose earliest moment has passed.
    public static func due<ID>(_ jobs: [DueJob<ID>], at date: Date) -> [ID] {
        jobs.filter { $0.earliest <= date }.map(\.id)
    }

    /// The whole plan for a fixed set of jobs: each wake and the jobs it runs, in order. The
    /// daemon recomputes it at each wake (jobs change); tests and the benchmark use it whole.
    public static func plan<ID>(_ jobs: [DueJob<ID>], tolerance: Duration) -> [(at: Date, ids: [ID])] {
        var left = jobs.sorted { $0.earliest < $1.earliest }
        var wakes: [(at: Date, ids: [ID])] = []
        while let wake = nextWake(left, tolerance: tolerance) {
            let split = left.partitioningIndex { $0.earliest > wake }
            wakes.append((wake, left[..<split].map(\.id)))
            left.removeFirst(split)
        }
        return wakes
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for an array sorted so that all those
    /// that do come after all those that do not.
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
