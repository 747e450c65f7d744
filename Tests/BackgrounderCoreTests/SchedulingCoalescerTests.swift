import BackgrounderCore
import Foundation
import Testing

/// One timer for all apps (``WakeCoalescer``).
@Suite("Scheduling: wake coalescing", .timeLimit(.minutes(5)))
struct SchedulingCoalescerTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let tolerance = Duration.seconds(300)

    static func jobs(_ offsets: [TimeInterval]) -> [DueJob<Int>] {
        offsets.enumerated().map { DueJob(id: $0.offset, earliest: t0.addingTimeInterval($0.element)) }
    }

    @Test("N jobs due within the tolerance make one wake that runs them all", arguments: [1, 3, 20, 500])
    func oneWake(_ count: Int) {
        let jobs = Self.jobs((0..<count).map { Double($0) * 299 / Double(max(1, count - 1)) })
        let plan = WakeCoalescer.plan(jobs, tolerance: Self.tolerance)
        #expect(plan.count == 1)
        #expect(plan.first?.at == Self.t0.addingTimeInterval(300))
        #expect(Set(plan.first?.ids ?? []) == Set(0..<count))
    }

    @Test("the timer fires at the first deadline and runs every job whose earliest has passed")
    func firstDeadline() {
        let jobs = Self.jobs([100, 0, 250, 400, 700])
        #expect(WakeCoalescer.nextWake(jobs, tolerance: Self.tolerance) == Self.t0.addingTimeInterval(300))
        #expect(Set(WakeCoalescer.due(jobs, at: Self.t0.addingTimeInterval(300))) == [0, 1, 2])
        let plan = WakeCoalescer.plan(jobs, tolerance: Self.tolerance)
        #expect(plan.map { $0.at.timeIntervalSince(Self.t0) } == [300, 700])
        #expect(plan.map { Set($0.ids) } == [[0, 1, 2], [3, 4]])
    }

    @Test("no jobs, no wake; a tolerance of 0 is a wake per distinct due date")
    func edges() {
        #expect(WakeCoalescer.nextWake([DueJob<Int>](), tolerance: Self.tolerance) == nil)
        #expect(WakeCoalescer.plan([DueJob<Int>](), tolerance: Self.tolerance).isEmpty)
        #expect(WakeCoalescer.plan(Self.jobs([0, 0, 10, 20]), tolerance: .zero).count == 3)
        #expect(WakeCoalescer.nextWake(Self.jobs([5]), tolerance: .seconds(-10)) == Self.t0.addingTimeInterval(5))
    }

    @Test("every job runs within [earliest, earliest + tolerance], with the fewest wakes (checked by brute force)")
    func optimal() {
        var generator = SplitMix(seed: 7)
        for _ in 0..<200 {
            let count = Int.random(in: 1...7, using: &generator)
            let offsets = (0..<count).map { _ in Double(Int.random(in: 0...12, using: &generator)) * 100 }
            let jobs = Self.jobs(offsets)
            let plan = WakeCoalescer.plan(jobs, tolerance: Self.tolerance)
            var ranAt: [Int: Date] = [:]
            for wake in plan { for id in wake.ids { ranAt[id] = wake.at } }
            for job in jobs {
                let at = ranAt[job.id]!
                #expect(at >= job.earliest && at <= job.earliest.addingTimeInterval(300))
            }
            #expect(plan.count == Self.fewestStabs(offsets, width: 300))
        }
    }

    @Test("a job's own tolerance replaces the given one, and the greedy stays optimal with mixed tolerances")
    func ownTolerance() {
        let jobs = [
            DueJob(id: 0, earliest: Self.t0, tolerance: .seconds(900)),
            DueJob(id: 1, earliest: Self.t0.addingTimeInterval(600)),
            DueJob(id: 2, earliest: Self.t0.addingTimeInterval(800), tolerance: .seconds(900)),
        ]
        #expect(WakeCoalescer.nextWake(jobs, tolerance: Self.tolerance) == Self.t0.addingTimeInterval(900))
        let plan = WakeCoalescer.plan(jobs, tolerance: Self.tolerance)
        #expect(plan.count == 1 && Set(plan[0].ids) == [0, 1, 2])

        var generator = SplitMix(seed: 11)
        for _ in 0..<200 {
            let count = Int.random(in: 1...6, using: &generator)
            let random = (0..<count).map { id in
                DueJob(
                    id: id,
                    earliest: Self.t0.addingTimeInterval(Double(Int.random(in: 0...12, using: &generator)) * 100),
                    tolerance: .seconds(Int.random(in: 0...9, using: &generator) * 100))
            }
            let plan = WakeCoalescer.plan(random, tolerance: Self.tolerance)
            var ranAt: [Int: Date] = [:]
            for wake in plan { for id in wake.ids { ranAt[id] = wake.at } }
            for job in random {
                #expect(ranAt[job.id]! >= job.earliest && ranAt[job.id]! <= job.deadline(Self.tolerance))
            }
            #expect(
                plan.count
                    == Self.fewestStabs(random.map { ($0.earliest.timeIntervalSince(Self.t0), $0.tolerance!.seconds) }))
        }
    }

    static func fewestStabs(_ starts: [Double], width: Double) -> Int {
        fewestStabs(starts.map { ($0, width) })
    }

    /// The fewest points stabbing every [x, x + width], by trying every subset of candidate
    /// points (the right ends suffice).
    static func fewestStabs(_ intervals: [(start: Double, width: Double)]) -> Int {
        let candidates = Array(Set(intervals.map { $0.start + $0.width })).sorted()
        var best = candidates.count
        for mask in 1..<(1 << candidates.count) {
            let points = candidates.indices.filter { mask & (1 << $0) != 0 }.map { candidates[$0] }
            if points.count < best,
                intervals.allSatisfy({ job in points.contains { $0 >= job.start && $0 <= job.start + job.width } })
            {
                best = points.count
            }
        }
        return best
    }
}

/// A small seeded generator, so the random cases are the same on every run.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
