// TEMPORARY: the lead's stand-ins for the CORE helper's Scheduling types (interfaces12.md),
// deleted at merge.
public import Foundation

public enum BackgroundFetchInterval: Sendable, Hashable, Codable {
    case minimum, never
    case seconds(Double)
    public var problem: String? {
        if case .seconds(let s) = self, !(s.isFinite && s > 0) { return "the interval must be positive" }
        return nil
    }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) {
            switch s {
            case "minimum": self = .minimum
            case "never": self = .never
            default:
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "expected minimum, never or seconds")
            }
        } else {
            self = .seconds(try c.decode(Double.self))
        }
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .minimum: try c.encode("minimum")
        case .never: try c.encode("never")
        case .seconds(let s): try c.encode(s)
        }
    }
}

public enum BackgroundFetchResult: String, Sendable, Hashable, Codable, CaseIterable { case newData, noData, failed }

public struct SchedulingPolicy: Sendable, Hashable, Codable {
    public var fetchWindow: Duration = .seconds(30)
    public var appRefreshWindow: Duration = .seconds(30)
    public var pushWindow: Duration = .seconds(30)
    public var locationWindow: Duration = .seconds(10)
    public var processingMaximum: Duration = .seconds(600)
    public var minimumFetchInterval: Duration = .seconds(900)
    public var dailyFetchBudget: Int = 48
    public var fetchBackoffCap: Duration = .seconds(8 * 3600)
    public var favouredWithin: Duration = .seconds(3600)
    public var coalescingTolerance: Duration = .seconds(300)
    public var idleBeforeProcessing: Duration = .seconds(300)
    public var pushBurst: Int = 3
    public var pushRefill: Duration = .seconds(1200)
    public var maximumEarliestBeginDelay: Duration = .seconds(7 * 86400)
    public init() {}
}

public struct FetchHistory: Sendable, Hashable, Codable {
    public var interval: BackgroundFetchInterval
    public var lastFetchAt: Date?
    public var lastResult: BackgroundFetchResult?
    public var consecutiveEmpty: Int = 0
    public var recentLaunches: [Date] = []
    public var lastOpenedAt: Date?
    public init(interval: BackgroundFetchInterval = .never) { self.interval = interval }
    public mutating func record(_ result: BackgroundFetchResult, at: Date) {
        lastResult = result
        consecutiveEmpty = result == .newData ? 0 : consecutiveEmpty + 1
    }
    public mutating func launched(at: Date) {
        lastFetchAt = at
        recentLaunches.append(at)
    }
}

public enum SchedulingWait: Sendable, Hashable, Codable, CustomStringConvertible {
    case earliestBeginDate(Date)
    case externalPower
    case network
    case idle
    case budget(until: Date)
    case backoff(until: Date)
    case never
    public var description: String {
        switch self {
        case .earliestBeginDate(let d): "earliestBeginDate \(d)"
        case .externalPower: "externalPower"
        case .network: "network"
        case .idle: "idle"
        case .budget(let d): "budget until \(d)"
        case .backoff(let d): "backoff until \(d)"
        case .never: "never"
        }
    }
}

public enum FetchScheduler {
    public static func nextFetch(_ history: FetchHistory, policy: SchedulingPolicy, now: Date) -> Date? {
        let interval: Double
        switch history.interval {
        case .never: return nil
        case .minimum: interval = policy.minimumFetchInterval.seconds
        case .seconds(let s): interval = max(s, policy.minimumFetchInterval.seconds)
        }
        guard let last = history.lastFetchAt else { return now }
        return last.addingTimeInterval(interval)
    }
    public static func waits(_ history: FetchHistory, policy: SchedulingPolicy, now: Date) -> [SchedulingWait] {
        guard let next = nextFetch(history, policy: policy, now: now) else { return [.never] }
        return next > now ? [.backoff(until: next)] : []
    }
}

public struct DueJob<ID: Hashable & Sendable>: Sendable, Hashable {
    public var id: ID
    public var earliest: Date
    public init(id: ID, earliest: Date) {
        self.id = id
        self.earliest = earliest
    }
}
public enum WakeCoalescer {
    public static func nextWake<ID>(_ jobs: [DueJob<ID>], tolerance: Duration) -> Date? {
        jobs.map { $0.earliest.addingTimeInterval(tolerance.seconds) }.min()
    }
    public static func due<ID>(_ jobs: [DueJob<ID>], at: Date) -> [ID] {
        jobs.filter { $0.earliest <= at }.map(\.id)
    }
}

public enum BackgroundTaskKind: String, Sendable, Hashable, Codable { case appRefresh, processing }
public struct BackgroundTaskRequest: Sendable, Hashable, Codable {
    public var identifier: String
    public var kind: BackgroundTaskKind
    public var earliestBeginDate: Date?
    public var requiresExternalPower: Bool
    public var requiresNetworkConnectivity: Bool
    public init(
        identifier: String, kind: BackgroundTaskKind, earliestBeginDate: Date? = nil,
        requiresExternalPower: Bool = false, requiresNetworkConnectivity: Bool = false
    ) {
        self.identifier = identifier
        self.kind = kind
        self.earliestBeginDate = earliestBeginDate
        self.requiresExternalPower = requiresExternalPower
        self.requiresNetworkConnectivity = requiresNetworkConnectivity
    }
    public func problem(now: Date, policy: SchedulingPolicy) -> String? {
        if let d = earliestBeginDate, d.timeIntervalSince(now) > policy.maximumEarliestBeginDelay.seconds {
            return "earliestBeginDate is too far"
        }
        return nil
    }
}
public struct DeviceConditions: Sendable, Hashable, Codable {
    public var externalPower: Bool
    public var network: Bool
    public var idleSince: Date?
    public init(externalPower: Bool, network: Bool, idleSince: Date?) {
        self.externalPower = externalPower
        self.network = network
        self.idleSince = idleSince
    }
}
public enum TaskReadiness {
    public static func waits(
        _ request: BackgroundTaskRequest, history: FetchHistory, conditions: DeviceConditions,
        policy: SchedulingPolicy, now: Date
    ) -> [SchedulingWait] {
        var w: [SchedulingWait] = []
        if let d = request.earliestBeginDate, d > now { w.append(.earliestBeginDate(d)) }
        if request.kind == .processing {
            if request.requiresExternalPower && !conditions.externalPower { w.append(.externalPower) }
            if request.requiresNetworkConnectivity && !conditions.network { w.append(.network) }
            if conditions.idleSince.map({ now.timeIntervalSince($0) < policy.idleBeforeProcessing.seconds }) ?? true {
                w.append(.idle)
            }
        }
        return w
    }
    public static func mustExpire(_ request: BackgroundTaskRequest, conditions: DeviceConditions) -> Bool {
        (request.requiresExternalPower && !conditions.externalPower)
            || (request.requiresNetworkConnectivity && !conditions.network)
    }
}

public struct PushBudget: Sendable, Hashable, Codable {
    public enum Outcome: Sendable, Hashable {
        case deliverNow
        case deferred(until: Date)
    }
    var tokens: Double
    var at: Date
    public private(set) var pendingPayload: String?
    public init(full policy: SchedulingPolicy, now: Date) {
        tokens = Double(policy.pushBurst)
        at = now
    }
    mutating func refill(_ policy: SchedulingPolicy, _ now: Date) {
        tokens = min(Double(policy.pushBurst), tokens + now.timeIntervalSince(at) / policy.pushRefill.seconds)
        at = now
    }
    public mutating func offer(_ payload: String, policy: SchedulingPolicy, now: Date) -> Outcome {
        refill(policy, now)
        if pendingPayload == nil && tokens >= 1 {
            tokens -= 1
            return .deliverNow
        }
        pendingPayload = payload
        return .deferred(until: pendingDue(policy: policy) ?? now)
    }
    public mutating func takeDue(policy: SchedulingPolicy, now: Date) -> String? {
        refill(policy, now)
        guard let p = pendingPayload, tokens >= 1 else { return nil }
        tokens -= 1
        pendingPayload = nil
        return p
    }
    public func pendingDue(policy: SchedulingPolicy) -> Date? {
        guard pendingPayload != nil else { return nil }
        return at.addingTimeInterval(max(0, 1 - tokens) * policy.pushRefill.seconds)
    }
}

extension BackgroundPolicy {
    public func scheduling(for app: AppManifest, onExternalPower: Bool) -> SchedulingPolicy { SchedulingPolicy() }
}
