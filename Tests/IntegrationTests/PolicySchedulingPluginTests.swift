import BackgrounderBundles
import BackgrounderCore
import BackgrounderTestSupport
import CBackgrounderPolicy
import Foundation
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

/// The plug-in ABI's second entry point: scheduling numbers per app and power state, loaded
/// from the real LowPowerPolicy library with dlopen as the daemon loads it.
@Suite("Policy plug-ins: scheduling numbers", .timeLimit(.minutes(5)), .tearsDown)
struct PolicySchedulingPluginTests {
    static let app = AppManifest(bundleIdentifier: "org.example.feed", name: "Feed", executable: "Feed")

    private func load(
        _ identifier: String = PolicyPluginTests.lowPower, prepare: (String) throws -> Void = { _ in }
    ) throws -> PluginPolicy {
        let directory = try TemporaryDirectory(prefix: "pols")
        defer { directory.remove() }
        let bundles = directory.appending("bundles")
        _ = try SampleBundles.assemble("LowPowerPolicy", into: bundles)
        try prepare(bundles)
        let catalog = BundleScanner().scan(directories: [bundles]).catalog
        return try PluginPolicy.load(BundleID(identifier), from: catalog, standard: StandardPolicy())
    }

    @Test("the low-power sample fetches at most hourly and allows one push at a time on battery only")
    func lowPowerOnBattery() throws {
        let policy = try load()
        let battery = policy.scheduling(for: Self.app, onExternalPower: false)
        #expect(battery.minimumFetchInterval == .seconds(3600))
        #expect(battery.pushBurst == 1)
        #expect(battery.fetchTolerance == .seconds(1800))
        #expect(battery.fetchWindow == SchedulingPolicy().fetchWindow, "fields it leaves alone stay standard")
        #expect(policy.scheduling(for: Self.app, onExternalPower: true) == SchedulingPolicy())
        // Asked again: the cached answer, the same.
        #expect(policy.scheduling(for: Self.app, onExternalPower: false) == battery)

        // The rules follow the numbers: on battery a 15-minute app waits an hour.
        var history = FetchHistory(interval: .minimum)
        let start = Date(timeIntervalSince1970: 1_000_000)
        history.launched(at: start)
        #expect(FetchScheduler.nextFetch(history, policy: battery, now: start) == start.addingTimeInterval(3600))
        var budget = PushBudget(full: battery, now: start)
        #expect(budget.offer("1", policy: battery, now: start) == .deliverNow)
        #expect(budget.offer("2", policy: battery, now: start) != .deliverNow)
    }

    @Test("a plug-in without the scheduling entry point keeps working with the standard numbers")
    func oldPluginKeepsWorking() throws {
        let policy = try load("org.example.old") { bundles in
            try PolicyPluginTests.makePolicyBundle(
                "Old", id: "org.example.old", symbol: "backgrounder_low_power_policy", in: bundles
            ) {
                try FileManager.default.copyItem(atPath: Locations.product("libLowPowerPolicy.so"), toPath: $0)
            }
        }
        #expect(policy.numbers.taskBudget == .seconds(15))
        #expect(policy.schedulingEntry == nil)
        #expect(policy.scheduling(for: Self.app, onExternalPower: false) == SchedulingPolicy())
    }

    @Test("a scheduling entry point named but missing refuses the plug-in, naming the key")
    func missingSchedulingSymbol() throws {
        do {
            _ = try load("org.example.nosched") { bundles in
                try PolicyPluginTests.makePolicyBundle(
                    "NoSched", id: "org.example.nosched", symbol: "backgrounder_low_power_policy",
                    scheduling: "no_such_scheduling", in: bundles
                ) {
                    try FileManager.default.copyItem(atPath: Locations.product("libLowPowerPolicy.so"), toPath: $0)
                }
            }
            Issue.record("a missing scheduling symbol was accepted")
        } catch {
            #expect("\(error)".contains("no_such_scheduling"), "\(error)")
            #expect("\(error)".contains("BackgrounderPolicySchedulingEntryPoint"), "\(error)")
        }
    }

    @Test("bad numbers keep the standard ones, each with a reason naming the field")
    func badNumbers() {
        let standard = SchedulingPolicy()
        var numbers = PluginScheduling.cNumbers(standard)
        numbers.fetch_backoff_cap = .nan
        numbers.push_refill = -1
        numbers.minimum_fetch_interval = .infinity
        numbers.push_burst = 0
        numbers.daily_fetch_budget = -3
        numbers.fetch_window = 12
        let (policy, problems) = PluginScheduling.policy(from: numbers, standard: standard)
        #expect(policy.fetchBackoffCap == standard.fetchBackoffCap)
        #expect(policy.pushRefill == standard.pushRefill)
        #expect(policy.minimumFetchInterval == standard.minimumFetchInterval)
        #expect(policy.pushBurst == standard.pushBurst)
        #expect(policy.dailyFetchBudget == standard.dailyFetchBudget)
        #expect(policy.fetchWindow == .seconds(12), "good numbers are taken")
        #expect(problems.count == 5)
        for field in ["fetch_backoff_cap", "push_refill", "minimum_fetch_interval", "push_burst", "daily_fetch_budget"]
        {
            #expect(problems.contains { $0.hasPrefix(field + " = ") }, "\(problems)")
        }
        // The standard numbers go through the C struct and back unchanged.
        let (same, none) = PluginScheduling.policy(from: PluginScheduling.cNumbers(standard), standard: standard)
        #expect(same == standard)
        #expect(none.isEmpty)
    }
}
