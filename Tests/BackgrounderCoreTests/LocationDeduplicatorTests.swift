import BackgrounderCore
import Testing

@Suite("Fix deduplication", .timeLimit(.minutes(5)))
struct LocationDeduplicatorTests {
    private func accepted(_ times: [Double], _ deduplicator: inout FixDeduplicator) -> [Bool] {
        times.map { deduplicator.accept(fix(Geo.ljubljana, at: $0)) }
    }

    @Test("one fix reported per sentence is accepted once")
    func gpsdRepeats() {
        var deduplicator = FixDeduplicator()
        // GGA, GSA and RMC of one epoch each give a TPV with the same fix time.
        #expect(accepted([100, 100, 100, 101, 101, 102], &deduplicator) == [true, false, false, true, false, true])
    }

    @Test("a late repeat of a recent fix is dropped, one of a fix long gone is not")
    func memory() {
        var deduplicator = FixDeduplicator()
        #expect(accepted([100, 101, 100, 102, 101], &deduplicator) == [true, true, false, true, false])
        // Four newer fix times push 100 out of memory.
        #expect(accepted([103, 104, 105, 106, 100], &deduplicator) == [true, true, true, true, true])
    }

    @Test("time going backwards is a replay or a restarted receiver, not a repeat")
    func backwards() {
        var deduplicator = FixDeduplicator()
        #expect(accepted([1_000, 1_001, 10, 11, 11], &deduplicator) == [true, true, true, true, false])
    }

    @Test("reset forgets")
    func reset() {
        var deduplicator = FixDeduplicator()
        #expect(accepted([100], &deduplicator) == [true])
        deduplicator.reset()
        #expect(accepted([100, 100], &deduplicator) == [true, false])
    }
}
