import BackgrounderCore
import BackgrounderTestSupport
import Testing

/// The filters against the generated GPS logs' ground truth (`scripts/make-walks.py`): what a
/// real receiver's fixes look like, with the truth beside them.
@Suite("Location filters on the GPS fixtures", .timeLimit(.minutes(5)))
struct LocationFixtureTests {
    /// Where the stationary receiver truly lies.
    private let table = Coordinate(latitude: 46.0569, longitude: 14.5058)

    @Test("a receiver on a table for 10 minutes: only the initial significant change")
    func stationarySignificantChange() throws {
        let track = try TruthTrack.load("stationary-jitter")
        #expect(track.fixes.count == 301)
        var filter = SignificantChangeFilter()
        #expect(track.fixes.filter { filter.offer($0) }.count == 1)
        // The jitter is real: up to ~20 m, more than a 10 m distance filter ignores.
        let spread = track.fixes.map { $0.coordinate.distance(to: table) }.max()!
        #expect(spread > 10 && spread < 30)
        var standard = StandardUpdateFilter(.init(distanceFilter: 50))
        #expect(track.fixes.filter { standard.offer($0) }.count == 1)
    }

    @Test(
        "a receiver on a table 3 m from a region's boundary: no flapping",
        arguments: [0.0, 90, 180, 270]
    )
    func stationaryRegion(bearing: Double) throws {
        let fixes = try TruthTrack.load("stationary-jitter").fixes
        // A 100 m region whose boundary passes 3 m from the table, on the table's side or not.
        for offset in [-3.0, 3.0] {
            let region = CircularRegion(
                identifier: "office", center: Geo.offset(table, distance: 100 + offset, bearing: bearing), radius: 100)
            for start in [RegionState.unknown, .inside, .outside] {
                var monitor = RegionMonitor()
                try monitor.add(region, owner: .app("app"), state: start)
                let transitions = fixes.flatMap { monitor.offer($0) }
                // From a known state nothing changes; from unknown the region may be placed
                // once, on the side the table is on.
                #expect(transitions.allSatisfy { $0.notification == nil })
                if start == .unknown {
                    #expect(transitions.count <= 1)
                    #expect(transitions.allSatisfy { $0.to == (offset < 0 ? .inside : .outside) })
                } else {
                    #expect(transitions.isEmpty, "bearing \(bearing), offset \(offset), from \(start)")
                }
            }
        }
    }

    @Test("the Bled loop: a significant change about every 500 m walked")
    func bledSignificantChanges() throws {
        let track = try TruthTrack.load("walk-bled")
        let length = track.length
        #expect(length > 5_500 && length < 6_500)
        var filter = SignificantChangeFilter()
        let events = track.fixes.filter { filter.offer($0) }
        // Each change is 500 m from the last, so the walk holds at most length / 500 of them
        // after the first (a little more for the fixes' noise); the detour up Ojstrica comes
        // back on itself, so some of the length gives none.
        #expect(Double(events.count - 1) <= length / 490)
        #expect(Double(events.count - 1) >= 0.7 * length / 500)
        for (earlier, later) in zip(events, events.dropFirst()) {
            #expect(later.timestamp - earlier.timestamp >= 300)
            #expect(earlier.coordinate.distance(to: later.coordinate) >= 500)
        }
    }

    @Test("the Bled loop: the switchbacks cross the Ojstrica viewpoint's circle six times; one enter, one exit")
    func bledViewpoint() throws {
        let track = try TruthTrack.load("walk-bled")
        let viewpoint = CircularRegion(
            identifier: "ojstrica", center: Coordinate(latitude: 46.35810, longitude: 14.08340), radius: 150)
        let crossings = zip(track.rows, track.rows.dropFirst()).filter {
            viewpoint.contains($0.0.truth) != viewpoint.contains($0.1.truth)
        }
        #expect(crossings.count == 6)
        var monitor = RegionMonitor()
        try monitor.add(viewpoint, owner: .app("app"), state: .outside)
        let transitions = track.fixes.flatMap { monitor.offer($0) }
        #expect(transitions.map(\.notification) == [.enter, .exit])
        // Each is confirmed where the truth agrees, after the dwell.
        let truth = Dictionary(uniqueKeysWithValues: track.rows.map { ($0.time, $0.truth) })
        for transition in transitions {
            let there = try #require(truth[transition.location.timestamp])
            #expect(viewpoint.contains(there) == (transition.to == .inside))
            #expect(transition.location.timestamp - transition.qualifiedAt >= monitor.configuration.dwell)
        }
    }

    @Test("a walk with one wild fix 2 km away: no false exit, no false change")
    func wildFix() throws {
        let track = try TruthTrack.load("corrupt-lines")
        let wild = track.fixes.filter {
            $0.coordinate.distance(to: Coordinate(latitude: 46.04983, longitude: 14.5065)) > 1_000
        }
        #expect(wild.count == 1)
        var filter = SignificantChangeFilter()
        #expect(track.fixes.filter { filter.offer($0) }.count == 1)
        var monitor = RegionMonitor()
        let oldTown = CircularRegion(
            identifier: "old town", center: Coordinate(latitude: 46.04983, longitude: 14.5065), radius: 400)
        try monitor.add(oldTown, owner: .app("app"), state: .inside)
        #expect(track.fixes.flatMap { monitor.offer($0) }.isEmpty)
    }
}
