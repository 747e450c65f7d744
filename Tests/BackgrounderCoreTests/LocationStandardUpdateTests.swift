import BackgrounderCore
import BackgrounderTestSupport
import Testing

@Suite("Standard location updates", .timeLimit(.minutes(5)))
struct LocationStandardUpdateTests {
    @Test("without filters every valid fix is delivered")
    func everyFix() {
        var filter = StandardUpdateFilter()
        for second in 0..<10 {
            let location = fix(Geo.offset(Geo.ljubljana, north: Double(second)), at: Double(second), accuracy: 500)
            #expect(evaluated(filter.offer(location)))
            #expect(filter.lastDelivered == location)
        }
    }

    @Test("a fix without a real position or time is never delivered")
    func invalid() {
        var filter = StandardUpdateFilter(.init(desiredAccuracy: LocationAccuracy.best, staleAfter: 0))
        #expect(evaluated(!filter.offer(fix(Coordinate(latitude: 91, longitude: 0), at: 0))))
        #expect(evaluated(!filter.offer(fix(Coordinate(latitude: .nan, longitude: 0), at: 1))))
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: .nan))))
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: .infinity))))
        #expect(filter.lastDelivered == nil)
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 2))))
    }

    @Test("distanceFilter delivers after each move of that many metres from the last delivery")
    func distanceFilter() {
        var filter = StandardUpdateFilter(.init(distanceFilter: 50))
        var delivered: [Int] = []
        // 12 m per fix in a straight line: 60 m is the first step beyond 50 m.
        for step in 0..<31 where filter.offer(fix(Geo.offset(Geo.ljubljana, east: 12 * Double(step)), at: Double(step)))
        {
            delivered.append(step)
        }
        #expect(delivered == [0, 5, 10, 15, 20, 25, 30])
    }

    @Test("distanceFilter ignores jitter around one place", arguments: [nil, -1.0, 0.0, 50.0])
    func jitterAroundOnePlace(distanceFilter: Double?) {
        var filter = StandardUpdateFilter(.init(distanceFilter: distanceFilter))
        var random = SeededGenerator(seed: 3)
        var delivered = 0
        for second in 0..<600 {
            let here = Geo.offset(Geo.ljubljana, east: jitter(20, using: &random), north: jitter(20, using: &random))
            if filter.offer(fix(here, at: Double(second))) { delivered += 1 }
        }
        // None, -1 (kCLDistanceFilterNone) and 0 mean every fix; 50 m is more than the jitter.
        #expect(delivered == (distanceFilter == 50 ? 1 : 600))
    }

    @Test("desiredAccuracy drops less accurate fixes; a fix without an estimate is trusted")
    func desiredAccuracy() {
        var filter = StandardUpdateFilter(.init(desiredAccuracy: LocationAccuracy.hundredMeters, staleAfter: 1_000))
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 0, accuracy: 150))))
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 1, accuracy: 100))))
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 2, accuracy: 101))))
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 3, accuracy: nil))))
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 4, accuracy: -1))))
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 5, accuracy: .nan))))
        #expect(filter.lastDelivered?.timestamp == 3)
    }

    @Test(
        "best and bestForNavigation accept any accuracy",
        arguments: [LocationAccuracy.best, LocationAccuracy.bestForNavigation])
    func best(accuracy: Double) {
        var filter = StandardUpdateFilter(.init(desiredAccuracy: accuracy))
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0, accuracy: 2_000))))
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 1, accuracy: 5))))
    }

    @Test("a worse fix is delivered once nothing was delivered for staleAfter seconds of fix time")
    func staleAfter() {
        var filter = StandardUpdateFilter(.init(desiredAccuracy: LocationAccuracy.nearestTenMeters, staleAfter: 10))
        var delivered: [Double] = []
        // Poor fixes once a second for 25 s, then a good one.
        for second in 0...25 where filter.offer(fix(Geo.ljubljana, at: Double(second), accuracy: 30)) {
            delivered.append(Double(second))
        }
        #expect(delivered == [10, 20])
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 26, accuracy: 8))))
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 27, accuracy: 30))))
    }

    @Test("staleness is measured in fix time, however fast fixes arrive")
    func fixTime() {
        var filter = StandardUpdateFilter(.init(desiredAccuracy: LocationAccuracy.nearestTenMeters, staleAfter: 10))
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 1_000, accuracy: 5))))
        // A replay at any speed: only the fix times count.
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 1_009.9, accuracy: 30))))
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 1_010, accuracy: 30))))
        // A clock that went back (a replay restarted) starts the wait again rather than starving.
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 100, accuracy: 30))))
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 105, accuracy: 30))))
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 110, accuracy: 30))))
    }

    @Test("accuracy and distance together")
    func both() {
        var filter = StandardUpdateFilter(
            .init(desiredAccuracy: LocationAccuracy.nearestTenMeters, distanceFilter: 100, staleAfter: 10))
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0, accuracy: 5))))
        // Far enough but not accurate enough, then accurate enough but too close.
        #expect(evaluated(!filter.offer(fix(Geo.offset(Geo.ljubljana, north: 150), at: 1, accuracy: 50))))
        #expect(evaluated(!filter.offer(fix(Geo.offset(Geo.ljubljana, north: 60), at: 2, accuracy: 5))))
        #expect(evaluated(filter.offer(fix(Geo.offset(Geo.ljubljana, north: 120), at: 3, accuracy: 5))))
        // Stale, but it has not moved: the distance filter still holds.
        #expect(evaluated(!filter.offer(fix(Geo.offset(Geo.ljubljana, north: 130), at: 30, accuracy: 50))))
        #expect(evaluated(filter.offer(fix(Geo.offset(Geo.ljubljana, north: 230), at: 31, accuracy: 50))))
    }
}
