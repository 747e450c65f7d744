import BackgrounderCore
import Foundation
import Testing

/// The scheduling state persisted in SQLite as JSON still loads.
@Suite("Scheduling: stored JSON", .timeLimit(.minutes(5)))
struct SchedulingCodingTests {
    @Test("a fetch history round-trips, and one missing fields loads with defaults")
    func history() throws {
        var history = FetchHistory(interval: .seconds(1800))
        history.launched(at: Date(timeIntervalSinceReferenceDate: 100))
        history.record(.noData, at: Date(timeIntervalSinceReferenceDate: 101))
        history.opened(at: Date(timeIntervalSinceReferenceDate: 50))
        let data = try JSONEncoder().encode(history)
        #expect(try JSONDecoder().decode(FetchHistory.self, from: data) == history)

        let old = try JSONDecoder().decode(FetchHistory.self, from: Data(#"{"interval":"minimum"}"#.utf8))
        #expect(old == FetchHistory(interval: .minimum))
        let stub = try JSONDecoder().decode(
            FetchHistory.self,
            from: Data(
                #"{"interval":900,"lastFetchAt":10,"lastResult":"failed","consecutiveEmpty":2,"recentLaunches":[10]}"#
                    .utf8))
        #expect(stub.interval == .seconds(900) && stub.consecutiveEmpty == 2 && stub.lastResult == .failed)
    }

    @Test("intervals are stored as \"minimum\", \"never\" or seconds, and nothing else")
    func interval() throws {
        for (interval, json) in [
            (BackgroundFetchInterval.minimum, #""minimum""#), (.never, #""never""#), (.seconds(60), "60"),
        ] {
            #expect(String(decoding: try JSONEncoder().encode(interval), as: UTF8.self) == json)
            #expect(try JSONDecoder().decode(BackgroundFetchInterval.self, from: Data(json.utf8)) == interval)
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(BackgroundFetchInterval.self, from: Data(#""often""#.utf8))
        }
    }

    @Test("a push budget and a task request round-trip")
    func budgetAndRequest() throws {
        let policy = SchedulingPolicy()
        var budget = PushBudget(full: policy, now: Date(timeIntervalSinceReferenceDate: 0))
        for payload in ["1", "2", "3", "4"] {
            _ = budget.offer(payload, policy: policy, now: Date(timeIntervalSinceReferenceDate: 0))
        }
        let decoded = try JSONDecoder().decode(PushBudget.self, from: try JSONEncoder().encode(budget))
        #expect(decoded == budget)
        #expect(decoded.pendingPayload == "4")

        let request = BackgroundTaskRequest(
            identifier: "org.example.compact", kind: .processing,
            earliestBeginDate: Date(timeIntervalSinceReferenceDate: 9),
            requiresExternalPower: true)
        #expect(
            try JSONDecoder().decode(BackgroundTaskRequest.self, from: try JSONEncoder().encode(request)) == request)
    }
}
