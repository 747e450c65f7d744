import BackgrounderCore
import Foundation
import Testing

/// The wall clock stepped back and forward (an NTP step, a clock that ran ahead, a person
/// setting the time) while fetches, deferred pushes and notifications are pending: nothing
/// fires twice, nothing is lost, and a step back does not postpone work by as long as the
/// clock went back. The daemon keeps wall-clock dates and sleeps on the monotonic clock for
/// the delay it computed (`Task.sleep`); the loops below do the same with an injected clock
/// whose wall part the test steps while the timer sleeps.
@Suite("Clock steps: pending work with the wall clock set back and forward", .timeLimit(.minutes(5)))
struct ClockStepTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = SchedulingPolicy()
    static let hour: TimeInterval = 3600
    static let day: TimeInterval = 86_400
    static let year: TimeInterval = 365 * 86_400

    /// A wall clock and a monotonic one; steps move only the wall clock.
    struct Clock {
        var monotonic: TimeInterval = 0
        var offset: TimeInterval = 0
        var steps: [(at: TimeInterval, by: TimeInterval)]

        init(offset: TimeInterval = 0, steps: [(at: TimeInterval, by: TimeInterval)]) {
            self.offset = offset
            self.steps = steps
        }

        var wall: Date { ClockStepTests.t0.addingTimeInterval(monotonic + offset) }

        /// Sleeps `delay` seconds of monotonic time; steps due meanwhile happen.
        mutating func sleep(_ delay: TimeInterval) {
            let until = monotonic + max(0, delay)
            while let step = steps.first, step.at <= until {
                offset += step.by
                steps.removeFirst()
            }
            monotonic = until
        }
    }

    /// SchedulingCapability's fetch timer for one app: at each wake, clamp the history (as
    /// `jobs` does; `clamps: false` is the daemon before the fix), start the fetch if due,
    /// then sleep until the coalescer's next wake.
    /// - Returns: The monotonic moments of each fetch.
    static func fetchLoop(
        steps: [(at: TimeInterval, by: TimeInterval)], until end: TimeInterval, clamps: Bool = true
    ) -> [TimeInterval] {
        var clock = Clock(steps: steps)
        var history = FetchHistory()
        history.setInterval(.minimum, at: clock.wall)
        var fetches: [TimeInterval] = []
        while clock.monotonic < end {
            let now = clock.wall
            if clamps { history.clampFuture(to: now) }
            if let next = FetchScheduler.nextFetch(history, policy: policy, now: now), next <= now {
                history.launched(at: now)
                history.record(.newData, at: now)
                fetches.append(clock.monotonic)
            }
            guard let next = FetchScheduler.nextFetch(history, policy: policy, now: now),
                let wake = WakeCoalescer.nextWake(
                    [DueJob(id: 0, earliest: next, tolerance: policy.fetchTolerance)],
                    tolerance: policy.coalescingTolerance)
            else { break }
            clock.sleep(wake.timeIntervalSince(now))
        }
        return fetches
    }

    /// The longest the loop sleeps between two fetches when the clock does not step.
    static var steadyGap: TimeInterval { policy.minimumFetchInterval.seconds + policy.fetchTolerance.seconds }

    @Test(
        "background fetch: a step back of an hour or a year delays the next fetch by at most one more interval",
        arguments: [hour, year])
    func fetchAfterStepBack(by step: TimeInterval) {
        let fetches = Self.fetchLoop(steps: [(at: 4 * Self.hour + 100, by: -step)], until: 12 * Self.hour)
        let gaps = zip(fetches, fetches.dropFirst()).map { $1 - $0 }
        // The sleep that spans the step, then at most one interval (with its tolerance).
        #expect(gaps.allSatisfy { $0 <= 2 * Self.steadyGap }, "gaps \(gaps)")
        #expect(gaps.allSatisfy { $0 >= Self.policy.minimumFetchInterval.seconds }, "never twice in an interval")
        #expect(fetches.count >= Int(12 * Self.hour / Self.steadyGap) - 1, "\(fetches.count) fetches in 12 h")

        // Before clampFuture the last fetch stayed "in the future": nothing for as long as the
        // clock went back.
        let unclamped = Self.fetchLoop(
            steps: [(at: 4 * Self.hour + 100, by: -step)], until: 12 * Self.hour, clamps: false)
        let ends = unclamped + [12 * Self.hour]
        let longest = zip(ends, ends.dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(longest >= min(step, 8 * Self.hour) - Self.steadyGap, "the bug this guards: \(unclamped)")
    }

    @Test("background fetch: a step forward of a day makes the fetch due once, not once per missed interval")
    func fetchAfterStepForward() {
        let fetches = Self.fetchLoop(steps: [(at: 4 * Self.hour + 100, by: Self.day)], until: 12 * Self.hour)
        let gaps = zip(fetches, fetches.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= Self.policy.minimumFetchInterval.seconds }, "gaps \(gaps)")
        #expect(gaps.allSatisfy { $0 <= Self.steadyGap }, "gaps \(gaps)")
    }

    @Test("the daily budget, spent just before a step back of a year, frees within a day of the step")
    func budgetAfterStepBack() {
        var history = FetchHistory(interval: .minimum)
        for index in 0..<Self.policy.dailyFetchBudget {
            history.launched(at: Self.t0.addingTimeInterval(Double(index) * 60))
        }
        let now = Self.t0.addingTimeInterval(-Self.year)
        let stuck = FetchScheduler.budgetUntil(history, policy: Self.policy, now: now)
        #expect(stuck.map { $0.timeIntervalSince(now) > Self.year } == true, "the bug this guards")
        let clamped = history.clampFuture(to: now)
        #expect(clamped)
        let until = FetchScheduler.budgetUntil(history, policy: Self.policy, now: now)
        #expect(until.map { $0.timeIntervalSince(now) <= Self.day } == true, "\(String(describing: until))")
        let again = history.clampFuture(to: now)
        #expect(!again, "clamping again changes nothing")
    }

    @Test("a deferred push waits at most one refill after a step back of a year; a step forward delivers it once")
    func deferredPush() {
        let policy = Self.policy
        var budget = PushBudget(full: policy, now: Self.t0)
        for _ in 0..<policy.pushBurst {
            let outcome = budget.offer("p", policy: policy, now: Self.t0)
            #expect(outcome == .deliverNow)
        }
        guard case .deferred(let until) = budget.offer("latest", policy: policy, now: Self.t0) else {
            Issue.record("a push beyond the burst is deferred")
            return
        }
        #expect(until == Self.t0.addingTimeInterval(policy.pushRefill.seconds))

        var back = budget
        let earlier = Self.t0.addingTimeInterval(-Self.year)
        let clamped = back.clampFuture(to: earlier)
        #expect(clamped)
        let due = back.pendingDue(policy: policy) ?? .distantFuture
        #expect(due.timeIntervalSince(earlier) <= policy.pushRefill.seconds)
        let first = back.takeDue(policy: policy, now: due)
        let second = back.takeDue(policy: policy, now: due)
        #expect(first == "latest")
        #expect(second == nil, "delivered once")

        var forward = budget
        let later = Self.t0.addingTimeInterval(Self.day)
        let changed = forward.clampFuture(to: later)
        #expect(!changed)
        let once = forward.takeDue(policy: policy, now: later)
        let twice = forward.takeDue(policy: policy, now: later)
        #expect(once == "latest")
        #expect(twice == nil, "delivered once")
    }

    // MARK: Notifications

    /// NotificationCapability's timer for one request: at each wake, bound the stored fire
    /// (as `reschedule` does), fire it if due (`wake`, `fire`), then sleep until the next.
    /// - Returns: The wall-clock due dates delivered, with the monotonic moment of each.
    static func notificationLoop(
        _ trigger: NotificationTrigger, steps: [(at: TimeInterval, by: TimeInterval)], until end: TimeInterval,
        timeZone: TimeZone = TimeZone(identifier: "Europe/Ljubljana")!, startingAt start: TimeInterval = 0
    ) -> [(due: Date, at: TimeInterval)] {
        var clock = Clock(offset: start, steps: steps)
        var next = NotificationSchedule.firstFire(of: trigger, addedAt: clock.wall, timeZone: timeZone)
        var delivered: [(due: Date, at: TimeInterval)] = []
        while let stored = next, clock.monotonic < end {
            let now = clock.wall
            let bounded = NotificationSchedule.boundedFire(stored, of: trigger, now: now, timeZone: timeZone)
            if bounded <= now {
                delivered.append((bounded, clock.monotonic))
                next = NotificationSchedule.nextFire(of: trigger, due: bounded, now: now, timeZone: timeZone)
                continue
            }
            next = bounded
            clock.sleep(bounded.timeIntervalSince(now))
        }
        return delivered
    }

    @Test(
        "a notification every 60 s: a step back of an hour or a year, or forward of a day, keeps it every 60 s, never twice",
        arguments: [-hour, -year, day])
    func repeatingInterval(step: TimeInterval) {
        let fired = Self.notificationLoop(
            .timeInterval(seconds: 60, repeats: true), steps: [(at: 610, by: step)], until: 1800)
        let gaps = zip(fired, fired.dropFirst()).map { $1.at - $0.at }
        #expect(gaps.allSatisfy { $0 > 0 && $0 <= 120 }, "gaps \(gaps)")
        #expect(Set(fired.map(\.due)).count == fired.count, "a due date delivered twice")
        #expect(fired.count >= 28 && fired.count <= 31, "\(fired.count) deliveries in 30 minutes")
    }

    @Test("a one-off reminder in 10 minutes, the clock set back a year after 5: it comes within 20 minutes, once")
    func oneOffInterval() {
        let fired = Self.notificationLoop(
            .timeInterval(seconds: 600, repeats: false), steps: [(at: 300, by: -Self.year)], until: Self.day)
        #expect(fired.count == 1)
        // The timer set before the step wakes at 10 minutes, finds it a year away and bounds it
        // to one interval from then.
        #expect(fired.first.map { $0.at <= 2 * 600 } == true, "\(fired.map(\.at))")
    }

    @Test(
        "a daily 09:00 notification: an hour back never repeats today's, a year back fires the next 09:00, a day forward fires once"
    )
    func dailyCalendar() {
        let zone = TimeZone(identifier: "Europe/Ljubljana")!
        let daily = NotificationTrigger.calendar(NotificationDateMatch(hour: 9), repeats: true)
        // t0 is 2027-01-15 08:00 UTC, 09:00 in Ljubljana: added a minute before, it fires at once.
        let start = -60.0
        func run(_ steps: [(at: TimeInterval, by: TimeInterval)]) -> [(due: Date, at: TimeInterval)] {
            Self.notificationLoop(daily, steps: steps, until: 3 * Self.day, timeZone: zone, startingAt: start)
        }
        let plain = run([])
        #expect(plain.count == 3, "\(plain.map(\.due))")

        // Fired at 09:00, the clock goes back to 08:30: today's 09:00 is not delivered again.
        let hourBack = run([(at: 1800, by: -Self.hour)])
        #expect(Set(hourBack.map(\.due)).count == hourBack.count, "\(hourBack.map(\.due))")
        #expect(hourBack.count == 3, "\(hourBack.map(\.due))")

        // A year back: a 09:00 of the new date, not a year later. The timer set before the step
        // wakes at 09:00 of the new date, which is then not "after now": the next day's comes.
        let yearBack = run([(at: 1800, by: -Self.year)])
        let gaps = zip(yearBack, yearBack.dropFirst()).map { $1.at - $0.at }
        #expect(gaps.allSatisfy { $0 <= 2 * Self.day + 60 }, "gaps \(gaps)")
        #expect(yearBack.count >= 2 && yearBack.last.map { $0.due < Self.t0 } == true, "\(yearBack.map(\.due))")

        // A day forward: the missed 09:00 is one delivery, then one a day.
        let dayForward = run([(at: 1800, by: Self.day)])
        #expect(Set(dayForward.map(\.due)).count == dayForward.count)
        #expect(dayForward.count <= 4, "\(dayForward.map(\.due))")
        #expect(zip(dayForward, dayForward.dropFirst()).allSatisfy { $1.due > $0.due })
    }

    @Test("a dated notification (year given) keeps its date after a step back: it is a wall-clock date")
    func datedCalendar() {
        let zone = TimeZone(identifier: "UTC")!
        let match = NotificationDateMatch(year: 2027, month: 6, day: 1, hour: 12)
        let trigger = NotificationTrigger.calendar(match, repeats: false)
        let due = NotificationSchedule.firstFire(of: trigger, addedAt: Self.t0, timeZone: zone)
        #expect(due != nil)
        let now = Self.t0.addingTimeInterval(-Self.year)
        #expect(due.map { NotificationSchedule.boundedFire($0, of: trigger, now: now, timeZone: zone) } == due)
    }
}
