import BackgrounderCore
import BackgrounderTestSupport
import Testing

/// `pausesLocationUpdatesAutomatically`: standing still for the activity's time pauses
/// standard updates, moving resumes them; time is the fixes' own.
@Suite("Location updates pause automatically")
struct LocationAutoPauseTests {
    static let fitness = StandardUpdateFilter.Configuration(pausesAutomatically: true, activityType: .fitness)

    /// Offers every fix; returns the times of the fixes that passed and of each change.
    static func run(_ filter: inout StandardUpdateFilter, _ fixes: [Location]) -> (
        passed: [Double], changes: [(Double, StandardUpdateFilter.PauseChange)]
    ) {
        var passed: [Double] = []
        var changes: [(Double, StandardUpdateFilter.PauseChange)] = []
        for fix in fixes {
            let (delivered, change) = filter.offerNoting(fix)
            if delivered { passed.append(fix.timestamp) }
            if let change { changes.append((fix.timestamp, change)) }
        }
        return (passed, changes)
    }

    @Test("the project's stationary log pauses a fitness app after five minutes, and its jitter never resumes it")
    func stationaryLogPauses() throws {
        let fixes = try TruthTrack.load("stationary-jitter").fixes
        var filter = StandardUpdateFilter(Self.fitness)
        let (passed, changes) = Self.run(&filter, fixes)
        let start = fixes[0].timestamp
        #expect(changes.count == 1 && changes.first?.1 == .paused, "\(changes)")
        let pausedAt = try #require(changes.first?.0) - start
        #expect(pausedAt >= 300 && pausedAt <= 304, "paused \(pausedAt) s in")
        // Every fix before the pause, none after.
        let beforePause = fixes.count { $0.timestamp - start < pausedAt }
        #expect(passed.allSatisfy { $0 - start < pausedAt } && passed.count == beforePause)
        #expect(filter.isPaused)

        // Off, or airborne, the same log never pauses.
        for configuration in [
            StandardUpdateFilter.Configuration(), .init(pausesAutomatically: true, activityType: .airborne),
        ] {
            var never = StandardUpdateFilter(configuration)
            #expect(Self.run(&never, fixes).changes.isEmpty)
        }
    }

    @Test(
        "walking off resumes at once: the fix that leaves the stop is delivered after the resume, whatever the distance filter"
    )
    func movingResumes() {
        var filter = StandardUpdateFilter(
            .init(distanceFilter: 500, pausesAutomatically: true, activityType: .automotiveNavigation))
        let still = (0...100).map { fix(Geo.offset(Geo.ljubljana, east: Double($0 % 3)), at: Double($0 * 2)) }
        let walk = (1...20).map { fix(Geo.offset(Geo.ljubljana, north: Double($0) * 10), at: 200 + Double($0)) }
        let (passed, changes) = Self.run(&filter, still + walk)
        #expect(changes.map(\.1) == [.paused, .resumed], "\(changes)")
        #expect(changes.first?.0 == 180, "automotive: three minutes")
        // North 60 m is the first fix past the 50 m around the stop.
        #expect(changes.last?.0 == 206)
        #expect(passed.contains(206) && !passed.contains(200) && !passed.contains(205))
        #expect(!filter.isPaused)
    }
}
