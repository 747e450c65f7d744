import BackgrounderCore
import BackgrounderTestSupport
import Testing

@Suite("Significant location changes", .timeLimit(.minutes(5)))
struct LocationSignificantChangeTests {
    /// The fixes of `track` that are significant changes.
    private func events(_ track: [Location], _ filter: inout SignificantChangeFilter) -> [Location] {
        track.filter { filter.offer($0) }
    }

    private func events(_ track: [Location], configuration: SignificantChangeFilter.Configuration = .init())
        -> [Location]
    {
        var filter = SignificantChangeFilter(configuration)
        return events(track, &filter)
    }

    /// A walk straight east from Ljubljana, one fix a second, with a few metres of noise.
    private func straightWalk(speed: Double, seconds: Int, seed: UInt64) -> [Location] {
        var random = SeededGenerator(seed: seed)
        return (0..<seconds).map { second in
            let here = Geo.offset(
                Geo.ljubljana, east: speed * Double(second) + jitter(3, using: &random),
                north: jitter(3, using: &random))
            return fix(here, at: 1_000 + Double(second), accuracy: Double.random(in: 4...10, using: &random))
        }
    }

    /// Every pair of consecutive events is at least the minimum interval and distance apart.
    private func expectSpacing(_ events: [Location], interval: Double = 300, distance: Double = 500) {
        for (earlier, later) in zip(events, events.dropFirst()) {
            #expect(later.timestamp - earlier.timestamp >= interval)
            #expect(earlier.coordinate.distance(to: later.coordinate) >= distance)
        }
    }

    @Test("the first plausible fix is a change and becomes the anchor")
    func first() {
        var filter = SignificantChangeFilter()
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 0, accuracy: 500))))  // too inaccurate
        #expect(evaluated(!filter.offer(fix(Coordinate(latitude: .nan, longitude: 0), at: 1))))
        let first = fix(Geo.ljubljana, at: 2, accuracy: 20)
        #expect(evaluated(filter.offer(first)))
        #expect(filter.anchor == first)
        #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 3))))
    }

    @Test("a restored anchor is not announced again")
    func restored() {
        let anchor = fix(Geo.ljubljana, at: 0)
        var filter = SignificantChangeFilter(anchor: anchor)
        #expect(evaluated(!filter.offer(fix(Geo.offset(Geo.ljubljana, north: 30), at: 1_000))))
        #expect(filter.anchor == anchor)
    }

    @Test(
        "a straight walk at 1.4 m/s gives one change per 500 m, never two within 300 s",
        arguments: [1, 2, 3] as [UInt64])
    func walk(seed: UInt64) {
        let track = straightWalk(speed: 1.4, seconds: 7_200, seed: seed)
        let found = events(track)
        let walked = track.first!.coordinate.distance(to: track.last!.coordinate)
        // 10 km: the first fix, then a change every 500 m and a few (agreement takes two more
        // fixes, and noise moves the anchors by metres).
        #expect(walked > 10_000)
        let moves = Double(found.count - 1)
        #expect(moves <= walked / 490 && moves >= walked / 510 - 1)
        expectSpacing(found)
    }

    @Test("a car at 20 m/s is held to one change per 300 s of fix time")
    func interval() {
        let track = straightWalk(speed: 20, seconds: 3_600, seed: 4)
        let found = events(track)
        #expect(found.count == 12)  // at 0, 300, ..., 3300 s
        expectSpacing(found)
        for (earlier, later) in zip(found, found.dropFirst()) {
            #expect(later.timestamp - earlier.timestamp == 300)
        }
    }

    @Test("a move confirmed before the interval fires on the first fix after it, if still away")
    func pending() {
        var filter = SignificantChangeFilter()
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0))))
        let away = Geo.offset(Geo.ljubljana, north: 700)
        // 700 m in 60 s, then standing there.
        for second in 1...60 {
            let walking = Geo.offset(Geo.ljubljana, north: 700 * Double(second) / 60)
            #expect(evaluated(!filter.offer(fix(walking, at: Double(second)))))
        }
        for second in 61..<300 { #expect(evaluated(!filter.offer(fix(away, at: Double(second))))) }
        #expect(evaluated(filter.offer(fix(away, at: 300))))
        #expect(filter.anchor?.timestamp == 300)
    }

    @Test("a move that comes back before the interval is no change")
    func cancelled() {
        var filter = SignificantChangeFilter()
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0))))
        for second in 1...100 {
            #expect(evaluated(!filter.offer(fix(Geo.offset(Geo.ljubljana, north: 700), at: Double(second)))))
        }
        // Back home, within 500 m of the anchor, from before the interval ends until long after.
        for second in 200...1_000 {
            #expect(evaluated(!filter.offer(fix(Geo.offset(Geo.ljubljana, north: 400), at: Double(second)))))
        }
    }

    @Test("stationary noise never counts as a move")
    func stationary() {
        var random = SeededGenerator(seed: 5)
        var wander = (east: 0.0, north: 0.0)
        var track: [Location] = []
        for second in 0..<7_200 {
            // Correlated wander (as multipath) up to ±60 m plus white noise, at poor accuracy.
            wander.east = max(-60, min(60, wander.east + jitter(4, using: &random)))
            wander.north = max(-60, min(60, wander.north + jitter(4, using: &random)))
            let here = Geo.offset(
                Geo.ljubljana, east: wander.east + jitter(10, using: &random),
                north: wander.north + jitter(10, using: &random))
            track.append(fix(here, at: Double(second), accuracy: Double.random(in: 10...60, using: &random)))
        }
        #expect(events(track).count == 1)
    }

    @Test(
        "a single wild fix does not fire, even with a small claimed accuracy or after a gap",
        arguments: [1.0, 60.0, 3_600.0]
    )
    func wildFix(gap: Double) {
        var filter = SignificantChangeFilter()
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0))))
        for second in 1..<400 { #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: Double(second))))) }
        // 2 km away, claiming 3 m.
        #expect(evaluated(!filter.offer(fix(Geo.offset(Geo.ljubljana, east: 2_000), at: 399 + gap, accuracy: 3))))
        for second in 1..<400 { #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: 399 + gap + Double(second))))) }
        #expect(filter.anchor?.timestamp == 0)
    }

    @Test("wild fixes that disagree with each other stay outliers")
    func scatteredOutliers() {
        var filter = SignificantChangeFilter()
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0))))
        for second in 1..<1_000 {
            // Three fixes in every ten jump, each to a different place 3 to 5 km away.
            let here =
                second % 10 < 3
                ? Geo.offset(Geo.ljubljana, distance: 3_000 + Double(second % 7) * 300, bearing: Double(second * 137))
                : Geo.ljubljana
            #expect(evaluated(!filter.offer(fix(here, at: Double(second)))))
        }
    }

    @Test("a jump confirmed by agreeing fixes is real (gpsd restarted elsewhere)")
    func jump() {
        var filter = SignificantChangeFilter()
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0))))
        for second in 1..<400 { #expect(evaluated(!filter.offer(fix(Geo.ljubljana, at: Double(second))))) }
        let elsewhere = Geo.offset(Geo.ljubljana, east: 5_000)
        // 5 km in a second: outliers, until three agree.
        #expect(evaluated(!filter.offer(fix(elsewhere, at: 400))))
        #expect(evaluated(!filter.offer(fix(Geo.offset(elsewhere, north: 3), at: 401))))
        let third = fix(Geo.offset(elsewhere, north: 5), at: 402)
        #expect(evaluated(filter.offer(third)))
        #expect(filter.anchor == third)
        #expect(evaluated(!filter.offer(fix(Geo.offset(elsewhere, north: 6), at: 403))))
    }

    @Test("a jump soon after the last change waits for the interval")
    func jumpPending() {
        var filter = SignificantChangeFilter()
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0))))
        let elsewhere = Geo.offset(Geo.ljubljana, north: -5_000)
        for second in 100..<300 { #expect(evaluated(!filter.offer(fix(elsewhere, at: Double(second))))) }
        #expect(evaluated(filter.offer(fix(elsewhere, at: 300))))
    }

    @Test("after a gap in the data, a plausible move counts at once")
    func gap() {
        var filter = SignificantChangeFilter()
        #expect(evaluated(filter.offer(fix(Geo.ljubljana, at: 0))))
        // An hour without fixes, then 30 km away: 8 m/s, plausible.
        let later = Geo.offset(Geo.ljubljana, east: 30_000)
        #expect(evaluated(!filter.offer(fix(later, at: 3_600))))
        #expect(evaluated(!filter.offer(fix(later, at: 3_601))))
        #expect(evaluated(filter.offer(fix(later, at: 3_602))))
    }

    @Test("configuration: distance, interval and agreement are honoured")
    func configured() {
        let configuration = SignificantChangeFilter.Configuration(
            minimumDistance: 100, minimumInterval: 60, agreement: 1)
        let found = events(straightWalk(speed: 1.4, seconds: 3_600, seed: 6), configuration: configuration)
        expectSpacing(found, interval: 60, distance: 100)
        // 5 km at one change per ~100 m, as soon as the noise puts a fix 100 m away.
        #expect(abs(found.count - 1 - 50) <= 3)
    }
}
