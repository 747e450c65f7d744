public import Foundation

/// The daemon's scheduling loop over virtual time: apps that set fetch intervals, return
/// results, submit app-refresh requests and are opened by the person, scheduled by the rules
/// in this folder. The unit tests check the rules' invariants over a simulated day with it, and
/// `bgbench schedule` runs the same day with one coalesced timer and with one timer per app.
///
/// Windows are taken to complete at once (their length does not change when work may start).
/// Before a due job runs its rules are checked again, since an earlier job of the same wake
/// may have spent the app's budget.
public struct ScheduleSimulation: Sendable {
    /// One simulated app.
    public struct App: Sendable, Hashable {
        /// Its bundle identifier.
        public var identifier: String
        /// The fetch interval it sets when it starts.
        public var interval: BackgroundFetchInterval
        /// What its fetches and refreshes return, in turn (cycled); empty means `.newData`.
        public var results: [BackgroundFetchResult]
        /// If set, it submits an app-refresh request for this long ahead when it starts and
        /// again at each refresh, as apps do in their launch handlers.
        public var refreshEvery: TimeInterval?
        /// Seconds after the start at which it sets its interval and submits.
        public var startsAt: TimeInterval
        /// Seconds after the start at which the person opens it.
        public var opens: [TimeInterval]

        /// An app.
        public init(
            identifier: String, interval: BackgroundFetchInterval, results: [BackgroundFetchResult] = [],
            refreshEvery: TimeInterval? = nil, startsAt: TimeInterval = 0, opens: [TimeInterval] = []
        ) {
            self.identifier = identifier
            self.interval = interval
            self.results = results
            self.refreshEvery = refreshEvery
            self.startsAt = startsAt
            self.opens = opens
        }
    }

    /// How the work is timed.
    public enum Mode: String, Sendable, CaseIterable {
        /// One timer for every app, by ``WakeCoalescer`` (the daemon's way).
        case coalesced
        /// One timer per app, firing when that app's first job is due (the naive way).
        case timerPerApp
    }

    /// What ran.
    public enum Work: String, Sendable, Hashable {
        /// A background fetch.
        case fetch
        /// An app-refresh task.
        case refresh
    }

    /// One piece of work started.
    public struct Run: Sendable, Hashable {
        /// The app's index in ``ScheduleSimulation/apps``.
        public var app: Int
        /// Fetch or refresh.
        public var work: Work
        /// When it started.
        public var at: Date
        /// Since when it was due: its earliest moment, or the last change to the app that made
        /// it due (a start or an open), whichever is later.
        public var dueSince: Date
        /// What it returned.
        public var result: BackgroundFetchResult
    }

    /// What a simulated run gives.
    public struct Outcome: Sendable {
        /// Every wake-up of a timer.
        public var wakes: [Date]
        /// Every piece of work started, in order.
        public var runs: [Run]
        /// How many times the schedule was computed (each wake, start and open).
        public var decisions: Int
    }

    /// The apps.
    public var apps: [App]
    /// The numbers, the same for every app.
    public var policy: SchedulingPolicy
    /// When the simulation starts.
    public var start: Date
    /// How long it runs, in seconds.
    public var length: TimeInterval

    /// A simulation.
    public init(apps: [App], policy: SchedulingPolicy = SchedulingPolicy(), start: Date, length: TimeInterval) {
        self.apps = apps
        self.policy = policy
        self.start = start
        self.length = length
    }

    private struct JobID: Hashable, Sendable {
        var app: Int
        var work: Work
    }

    private enum Event {
        case start(Int)
        case open(Int)
    }

    /// Runs the simulation.
    public func run(_ mode: Mode) -> Outcome {
        var state = State(count: apps.count, start: start)
        var events: [(at: Date, event: Event)] = []
        for (index, app) in apps.enumerated() {
            events.append((start.addingTimeInterval(app.startsAt), .start(index)))
            events += app.opens.map { (start.addingTimeInterval($0), .open(index)) }
        }
        events.sort { $0.at < $1.at }
        var nextEvent = 0
        let end = start.addingTimeInterval(length)
        var now = start
        var outcome = Outcome(wakes: [], runs: [], decisions: 0)
        // Each iteration handles an event or a wake; the bound only guards against a bug.
        for _ in 0..<10_000_000 {
            let jobs = self.jobs(state, now: now)
            outcome.decisions += 1
            let wake: Date?
            var only: Int?
            switch mode {
            case .coalesced:
                wake = WakeCoalescer.nextWake(jobs, tolerance: policy.coalescingTolerance)
            case .timerPerApp:
                // Each app's timer fires when its first job is due; no tolerance, none needed.
                let first = jobs.min { $0.earliest < $1.earliest }
                wake = first?.earliest
                only = first?.id.app
            }
            if nextEvent < events.count, wake.map({ events[nextEvent].at < $0 }) ?? true {
                let (at, event) = events[nextEvent]
                nextEvent += 1
                guard at <= end else { break }
                now = max(now, at)
                apply(event, to: &state, now: now)
                continue
            }
            guard let wake, wake <= end else { break }
            now = max(now, wake)
            // Timers due at the same instant are one wake-up of the machine.
            if outcome.wakes.last != now { outcome.wakes.append(now) }
            for job in jobs where job.earliest <= now && (only == nil || job.id.app == only) {
                guard let earliest = earliest(job.id, state, now: now), earliest <= now else { continue }
                // Due since the latest of: when it was planned for, when the rules now say
                // (a budget that frees moves it back), and the app's last change.
                outcome.runs.append(perform(job.id, on: &state, now: now, earliest: max(earliest, job.earliest)))
            }
        }
        return outcome
    }

    private struct State {
        var histories: [FetchHistory]
        var requests: [BackgroundTaskRequest?]
        var changedAt: [Date]
        var turns: [Int]

        init(count: Int, start: Date) {
            histories = Array(repeating: FetchHistory(), count: count)
            requests = Array(repeating: nil, count: count)
            changedAt = Array(repeating: start, count: count)
            turns = Array(repeating: 0, count: count)
        }
    }

    private static let idleDevice = DeviceConditions(externalPower: true, network: true, idleSince: nil)

    private func jobs(_ state: State, now: Date) -> [DueJob<JobID>] {
        var jobs: [DueJob<JobID>] = []
        jobs.reserveCapacity(apps.count * 2)
        for index in apps.indices {
            for work in [Work.fetch, .refresh] {
                let id = JobID(app: index, work: work)
                if let earliest = earliest(id, state, now: now) {
                    jobs.append(DueJob(id: id, earliest: earliest, tolerance: policy.fetchTolerance))
                }
            }
        }
        return jobs
    }

    /// A fixed earliest moment (not "now"), so recomputing does not push the timer back.
    private func earliest(_ id: JobID, _ state: State, now: Date) -> Date? {
        let history = state.histories[id.app]
        switch id.work {
        case .fetch:
            return FetchScheduler.nextFetch(history, policy: policy, now: now).map { max($0, state.changedAt[id.app]) }
        case .refresh:
            guard let request = state.requests[id.app] else { return nil }
            let waits = TaskReadiness.waits(
                request, history: history, conditions: Self.idleDevice, policy: policy, now: now)
            var earliest = request.earliestBeginDate ?? state.changedAt[id.app]
            for wait in waits {
                guard let until = wait.until else { return nil }
                earliest = max(earliest, until)
            }
            return earliest
        }
    }

    private func apply(_ event: Event, to state: inout State, now: Date) {
        switch event {
        case .start(let index):
            state.histories[index].setInterval(apps[index].interval, at: now)
            state.changedAt[index] = now
            if let every = apps[index].refreshEvery {
                state.requests[index] = BackgroundTaskRequest(
                    identifier: "refresh", kind: .appRefresh, earliestBeginDate: now.addingTimeInterval(every))
            }
        case .open(let index):
            let before = FetchScheduler.nextFetch(state.histories[index], policy: policy, now: now)
            state.histories[index].opened(at: now)
            if FetchScheduler.nextFetch(state.histories[index], policy: policy, now: now) != before {
                state.changedAt[index] = now
            }
        }
    }

    private func perform(_ id: JobID, on state: inout State, now: Date, earliest: Date) -> Run {
        let app = apps[id.app]
        let result = app.results.isEmpty ? .newData : app.results[state.turns[id.app] % app.results.count]
        let run = Run(
            app: id.app, work: id.work, at: now, dueSince: max(earliest, state.changedAt[id.app]), result: result)
        state.turns[id.app] += 1
        state.histories[id.app].launched(at: now)
        state.histories[id.app].record(result, at: now)
        state.changedAt[id.app] = now
        if id.work == .refresh {
            state.requests[id.app] = app.refreshEvery.map {
                BackgroundTaskRequest(
                    identifier: "refresh", kind: .appRefresh, earliestBeginDate: now.addingTimeInterval($0))
            }
        }
        return run
    }
}
