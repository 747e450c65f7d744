public import Foundation

/// Which waiting transfers may start now, and why the others wait: pure, so the daemon calls
/// it whenever something changes (a transfer ends, the network or power changes, its one
/// timer fires) and starts what it returns.
///
/// Every transfer needs a network; a discretionary one also external power (iOS's
/// `isDiscretionary`); none starts before its `earliestBeginDate` or its retry's moment; and
/// no app runs more than ``SchedulingPolicy/transferConcurrency`` at once. Among those that
/// may go, the app in front goes first (the person is waiting for it), then the oldest.
public enum TransferQueue {
    /// A transfer that is not running, as the queue sees it.
    public struct Waiting: Sendable, Hashable {
        /// The transfer's identifier.
        public var id: Int
        /// The app's bundle identifier.
        public var bundle: BundleID
        /// When it was created: older goes first.
        public var created: Date
        /// Waits for external power.
        public var discretionary: Bool
        /// Not before this.
        public var earliestBeginDate: Date?
        /// Backing off until this.
        public var retryAt: Date?

        /// A waiting transfer.
        public init(
            id: Int, bundle: BundleID, created: Date, discretionary: Bool = false, earliestBeginDate: Date? = nil,
            retryAt: Date? = nil
        ) {
            self.id = id
            self.bundle = bundle
            self.created = created
            self.discretionary = discretionary
            self.earliestBeginDate = earliestBeginDate
            self.retryAt = retryAt
        }
    }

    /// The queue's answer.
    public struct Plan: Sendable, Hashable {
        /// The transfers to start now, in the order to start them.
        public var start: [Int]
        /// Why each other transfer waits.
        public var waits: [Int: TransferWait]
        /// The next moment a date alone may let one start (an `earliestBeginDate` or a retry),
        /// for the daemon's one timer; `nil` when only an event (a transfer ending, power or
        /// network returning) can.
        public var nextCheck: Date?
    }

    /// Plans a round.
    ///
    /// - Parameters:
    ///   - waiting: Every transfer not running and not finished.
    ///   - running: How many transfers each app has running.
    ///   - foreground: The app in front, if any.
    public static func plan(
        waiting: [Waiting], running: [BundleID: Int], foreground: BundleID?, conditions: DeviceConditions,
        policy: SchedulingPolicy, now: Date
    ) -> Plan {
        let ordered = waiting.sorted { a, b in
            let aFront = a.bundle == foreground
            let bFront = b.bundle == foreground
            if aFront != bFront { return aFront }
            if a.created != b.created { return a.created < b.created }
            return a.id < b.id
        }
        var running = running
        var plan = Plan(start: [], waits: [:], nextCheck: nil)
        for transfer in ordered {
            let wait = reason(transfer, running: running[transfer.bundle, default: 0], conditions, policy, now)
            guard let wait else {
                plan.start.append(transfer.id)
                running[transfer.bundle, default: 0] += 1
                continue
            }
            plan.waits[transfer.id] = wait
            for date in [transfer.earliestBeginDate, transfer.retryAt].compactMap(\.self) where date > now {
                plan.nextCheck = min(plan.nextCheck ?? date, date)
            }
        }
        return plan
    }

    /// The one reason shown for a transfer's wait: dates first (they say when), then the
    /// conditions, then the app's share of connections.
    private static func reason(
        _ transfer: Waiting, running: Int, _ conditions: DeviceConditions, _ policy: SchedulingPolicy, _ now: Date
    ) -> TransferWait? {
        if let retryAt = transfer.retryAt, retryAt > now { return .retry }
        if let date = transfer.earliestBeginDate, date > now { return .earliestBeginDate }
        if !conditions.network { return .network }
        if transfer.discretionary && !conditions.externalPower { return .externalPower }
        if running >= max(policy.transferConcurrency, 1) { return .concurrency }
        return nil
    }

    /// Whether an app may hand over one more transfer: `nil`, or why not, naming the limit
    /// and the numbers.
    ///
    /// - Parameters:
    ///   - pendingCount: The app's transfers accepted and not yet acknowledged.
    ///   - diskBytes: What its transfers hold on disk now.
    ///   - expected: The new transfer's expected size, if the app said.
    public static func admit(
        bundle: BundleID, pendingCount: Int, diskBytes: Int64, expected: Int64?, policy: SchedulingPolicy
    ) -> String? {
        if pendingCount >= policy.transferPending {
            return
                "\(bundle) has \(pendingCount) transfers pending, the most the policy allows (\(policy.transferPending))"
        }
        let limit = Int64(policy.transferDiskBytes)
        let expected = max(expected ?? 0, 0)
        if expected > limit - min(diskBytes, limit) || diskBytes >= limit {
            let holding = ByteCountText.string(diskBytes)
            let more = expected > 0 ? " and this transfer expects \(ByteCountText.string(expected)) more" : ""
            return
                "\(bundle)'s transfers hold \(holding) on disk\(more): the policy allows \(ByteCountText.string(limit))"
        }
        return nil
    }
}
