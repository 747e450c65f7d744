import BackgrounderCore
import Foundation
import Testing

/// The scheduler over a simulated day of 20 apps (``ScheduleSimulation``): its invariants hold,
/// and coalescing makes far fewer wake-ups than one timer per app.
@Suite("Scheduling: a simulated day of 20 apps", .timeLimit(.minutes(5)))
struct SchedulingDayTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400

    /// The same twenty apps bgbench's `schedule` runs.
    static let simulation = ScheduleSimulation.twentyApps(start: start)

    static let outcomes: [ScheduleSimulation.Mode: ScheduleSimulation.Outcome] = Dictionary(
        uniqueKeysWithValues: ScheduleSimulation.Mode.allCases.map { ($0, simulation.run($0)) })

    @Test("no fetch before the app's interval after its last launch", arguments: ScheduleSimulation.Mode.allCases)
    func noFetchBeforeMinimum(_ mode: ScheduleSimulation.Mode) throws {
        let outcome = try #require(Self.outcomes[mode])
        let policy = Self.simulation.policy
        var last: [Int: Date] = [:]
        for run in outcome.runs {
            if run.work == .fetch, let previous = last[run.app] {
                let base = try #require(
                    FetchScheduler.baseInterval(Self.simulation.apps[run.app].interval, policy: policy))
                #expect(run.at.timeIntervalSince(previous) >= base, "\(Self.simulation.apps[run.app].identifier)")
            }
            last[run.app] = run.at
        }
        #expect(outcome.runs.contains { $0.work == .fetch } && outcome.runs.contains { $0.work == .refresh })
    }

    @Test("the daily budget holds in every 24 hours", arguments: ScheduleSimulation.Mode.allCases)
    func budgetHeld(_ mode: ScheduleSimulation.Mode) throws {
        let outcome = try #require(Self.outcomes[mode])
        let budget = Self.simulation.policy.dailyFetchBudget
        var byApp: [Int: [Date]] = [:]
        for run in outcome.runs { byApp[run.app, default: []].append(run.at) }
        var spent = false
        for (app, times) in byApp {
            for (index, time) in times.enumerated() {
                let inWindow = times[...index].filter { time.timeIntervalSince($0) < Self.day }.count
                #expect(inWindow <= budget, "\(Self.simulation.apps[app].identifier)")
                spent = spent || inWindow == budget
            }
        }
        #expect(spent, "some app must reach its budget, or the budget is not exercised")
    }

    @Test(
        "an app that never has new data backs off to the cap and stays there",
        arguments: ScheduleSimulation.Mode.allCases)
    func backoffToCap(_ mode: ScheduleSimulation.Mode) throws {
        let outcome = try #require(Self.outcomes[mode])
        let policy = Self.simulation.policy
        let index = try #require(Self.simulation.apps.firstIndex { $0.identifier == "org.example.quiet" })
        let times = outcome.runs.filter { $0.app == index }.map(\.at)
        let gaps = zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
        let tolerance = policy.fetchTolerance.seconds
        var expected = policy.minimumFetchInterval.seconds
        for gap in gaps {
            expected = min(expected * 2, policy.fetchBackoffCap.seconds)
            #expect(gap >= expected && gap <= expected + tolerance, "\(gaps)")
        }
        #expect(gaps.count >= 5 && expected == policy.fetchBackoffCap.seconds, "\(gaps)")
    }

    @Test("every due job runs within its tolerance", arguments: ScheduleSimulation.Mode.allCases)
    func withinTolerance(_ mode: ScheduleSimulation.Mode) throws {
        let outcome = try #require(Self.outcomes[mode])
        let tolerance = Self.simulation.policy.fetchTolerance.seconds
        for run in outcome.runs {
            let late = run.at.timeIntervalSince(run.dueSince)
            #expect(late >= 0 && late <= tolerance + 1e-6, "\(run)")
        }
    }

    @Test("a person opening a backed-off app brings its next fetch forward")
    func openingFavours() throws {
        let outcome = try #require(Self.outcomes[.coalesced])
        let index = try #require(Self.simulation.apps.firstIndex { $0.identifier == "org.example.opened" })
        let app = Self.simulation.apps[index]
        let opened = Self.start.addingTimeInterval(app.opens[0])
        let after = try #require(outcome.runs.first { $0.app == index && $0.at >= opened })
        #expect(after.at.timeIntervalSince(opened) <= Self.simulation.policy.fetchTolerance.seconds)
    }

    @Test("coalescing gives at least 5x fewer wake-ups than one timer per app, for about the same work")
    func fewerWakes() throws {
        let coalesced = try #require(Self.outcomes[.coalesced])
        let separate = try #require(Self.outcomes[.timerPerApp])
        #expect(
            coalesced.wakes.count * 5 <= separate.wakes.count, "\(coalesced.wakes.count) vs \(separate.wakes.count)")
        // Not by doing less: about as much work (the delay of up to a tolerance per run
        // shifts the later runs a little).
        #expect(Double(coalesced.runs.count) >= Double(separate.runs.count) * 0.9)
    }
}

extension SchedulingDayTests {
    @Test("with one 5-minute tolerance for everything, still far fewer wake-ups (at least 3x)")
    func fewerWakesUniform() {
        var policy = SchedulingPolicy()
        policy.fetchTolerance = policy.coalescingTolerance
        let simulation = ScheduleSimulation.twentyApps(start: Self.start, policy: policy)
        let coalesced = simulation.run(.coalesced)
        let separate = simulation.run(.timerPerApp)
        #expect(
            coalesced.wakes.count * 3 <= separate.wakes.count, "\(coalesced.wakes.count) vs \(separate.wakes.count)")
        for run in coalesced.runs { #expect(run.at.timeIntervalSince(run.dueSince) <= 300 + 1e-6) }
    }
}
