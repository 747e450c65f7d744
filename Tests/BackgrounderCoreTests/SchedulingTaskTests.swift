import BackgrounderCore
import Foundation
import Testing

/// BGTaskScheduler requests: validation and readiness (``BackgroundTaskRequest``, ``TaskReadiness``).
@Suite("Scheduling: task requests", .timeLimit(.minutes(5)))
struct SchedulingTaskTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let policy = SchedulingPolicy()
    static let idle = DeviceConditions(externalPower: true, network: true, idleSince: now.addingTimeInterval(-600))

    static func processing(power: Bool = false, network: Bool = false, at date: Date? = nil) -> BackgroundTaskRequest {
        BackgroundTaskRequest(
            identifier: "org.example.compact", kind: .processing, earliestBeginDate: date,
            requiresExternalPower: power, requiresNetworkConnectivity: network)
    }

    static func waits(
        _ request: BackgroundTaskRequest, _ conditions: DeviceConditions = idle, history: FetchHistory = FetchHistory()
    )
        -> [SchedulingWait]
    {
        TaskReadiness.waits(request, history: history, conditions: conditions, policy: policy, now: now)
    }

    @Test("earliestBeginDate ahead is waited for; in the past or absent means as soon as possible")
    func earliestBeginDate() {
        let ahead = Self.now.addingTimeInterval(60)
        let refresh = BackgroundTaskRequest(identifier: "r", kind: .appRefresh, earliestBeginDate: ahead)
        #expect(Self.waits(refresh) == [.earliestBeginDate(ahead)])
        let past = BackgroundTaskRequest(
            identifier: "r", kind: .appRefresh, earliestBeginDate: Self.now.addingTimeInterval(-3600))
        #expect(past.problem(now: Self.now, policy: Self.policy) == nil)
        #expect(Self.waits(past).isEmpty)
        #expect(Self.waits(BackgroundTaskRequest(identifier: "r", kind: .appRefresh)).isEmpty)
    }

    @Test("processing waits for power, network and idleness, listing every reason")
    func processingConditions() {
        let request = Self.processing(power: true, network: true, at: Self.now.addingTimeInterval(30))
        let busy = DeviceConditions(externalPower: false, network: false, idleSince: nil)
        #expect(
            Self.waits(request, busy)
                == [.earliestBeginDate(Self.now.addingTimeInterval(30)), .externalPower, .network, .idle])
        #expect(Self.waits(Self.processing(power: true, network: true)).isEmpty)
        // Idle, but not for long enough yet.
        let justIdle = DeviceConditions(
            externalPower: true, network: true, idleSince: Self.now.addingTimeInterval(-299))
        #expect(Self.waits(Self.processing(), justIdle) == [.idle])
        // A condition not required is not waited for.
        let battery = DeviceConditions(
            externalPower: false, network: false, idleSince: Self.now.addingTimeInterval(-300))
        #expect(Self.waits(Self.processing(), battery).isEmpty)
    }

    @Test("a running processing task must expire when a required condition breaks, and only then")
    func mustExpire() {
        let onBattery = DeviceConditions(externalPower: false, network: true, idleSince: nil)
        let offline = DeviceConditions(externalPower: true, network: false, idleSince: nil)
        #expect(TaskReadiness.mustExpire(Self.processing(power: true), conditions: onBattery))
        #expect(!TaskReadiness.mustExpire(Self.processing(power: true), conditions: offline))
        #expect(TaskReadiness.mustExpire(Self.processing(network: true), conditions: offline))
        #expect(!TaskReadiness.mustExpire(Self.processing(), conditions: onBattery), "idleness ending does not expire")
        #expect(
            !TaskReadiness.mustExpire(BackgroundTaskRequest(identifier: "r", kind: .appRefresh), conditions: onBattery))
    }

    @Test("an app-refresh request waits while the app's daily fetch budget is spent")
    func refreshBudget() {
        var policy = Self.policy
        policy.dailyFetchBudget = 1
        var history = FetchHistory(interval: .minimum)
        history.launched(at: Self.now.addingTimeInterval(-100))
        let waits = TaskReadiness.waits(
            BackgroundTaskRequest(identifier: "r", kind: .appRefresh), history: history, conditions: Self.idle,
            policy: policy, now: Self.now)
        #expect(waits == [.budget(until: Self.now.addingTimeInterval(86_300))])
    }

    @Test(
        "bad requests are refused, naming the field",
        // Seconds since 1970, not Dates: describing an infinite Date traps.
        arguments: [(Double, String)]([
            (Double.infinity, "earliestBeginDate must be a finite date"),
            (-Double.infinity, "earliestBeginDate must be a finite date"),
            (Double.nan, "earliestBeginDate must be a finite date"),
            (1_800_000_000 + 8 * 86_400, "earliestBeginDate is 8.0 days ahead"),
            (Date.distantFuture.timeIntervalSince1970, "earliestBeginDate is"),
        ]))
    func badDates(_ seconds: Double, message: String) {
        let date = Date(timeIntervalSince1970: seconds)
        let problem = Self.processing(at: date).problem(now: Self.now, policy: Self.policy)
        #expect(problem?.hasPrefix(message) == true, "\(problem ?? "nil")")
    }

    @Test("a date exactly at the most is accepted; identifiers and refresh conditions are checked")
    func otherProblems() {
        #expect(
            Self.processing(at: Self.now.addingTimeInterval(7 * 86_400)).problem(now: Self.now, policy: Self.policy)
                == nil)
        #expect(
            BackgroundTaskRequest(identifier: "", kind: .appRefresh).problem(now: Self.now, policy: Self.policy)
                == "identifier must not be empty")
        #expect(
            BackgroundTaskRequest(identifier: String(repeating: "a", count: 257), kind: .appRefresh)
                .problem(now: Self.now, policy: Self.policy)?.hasPrefix("identifier is longer") == true)
        #expect(
            BackgroundTaskRequest(identifier: "r", kind: .appRefresh, requiresExternalPower: true)
                .problem(now: Self.now, policy: Self.policy)?.hasPrefix("requiresExternalPower") == true)
    }
}
