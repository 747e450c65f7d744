public import Foundation

/// Whether a pending ``BackgroundTaskRequest`` may start, and whether a running one must stop.
///
/// - Every request waits for its `earliestBeginDate`; one in the past (or none) means as soon
///   as possible.
/// - An app-refresh request is budgeted like background fetch: it waits while the app's daily
///   fetch budget is spent (``FetchScheduler/budgetUntil(_:policy:now:)``).
/// - A processing request waits for external power and network when it requires them, and
///   always for the device to have been idle for ``SchedulingPolicy/idleBeforeProcessing``.
/// - A running processing task must expire as soon as a condition it requires breaks
///   (``mustExpire(_:conditions:)``); idleness ending does not expire it (iOS lets it finish
///   its window).
public enum TaskReadiness {
    /// Every reason the request cannot start now; empty when it may.
    public static func waits(
        _ request: BackgroundTaskRequest, history: FetchHistory, conditions: DeviceConditions,
        policy: SchedulingPolicy, now: Date
    ) -> [SchedulingWait] {
        var waits: [SchedulingWait] = []
        if let date = request.earliestBeginDate, date > now { waits.append(.earliestBeginDate(date)) }
        switch request.kind {
        case .appRefresh:
            if let until = FetchScheduler.budgetUntil(history, policy: policy, now: now), until > now {
                waits.append(.budget(until: until))
            }
        case .processing:
            if request.requiresExternalPower && !conditions.externalPower { waits.append(.externalPower) }
            if request.requiresNetworkConnectivity && !conditions.network { waits.append(.network) }
            if !isIdleLongEnough(conditions, policy: policy, now: now) { waits.append(.idle) }
        }
        return waits
    }

    /// Whether the device has been idle for the policy's time.
    public static func isIdleLongEnough(_ conditions: DeviceConditions, policy: SchedulingPolicy, now: Date) -> Bool {
        guard let since = conditions.idleSince else { return false }
        return now.timeIntervalSince(since) >= policy.idleBeforeProcessing.seconds
    }

    /// Whether a running task must be expired now: a condition it requires no longer holds.
    public static func mustExpire(_ request: BackgroundTaskRequest, conditions: DeviceConditions) -> Bool {
        guard request.kind == .processing else { return false }
        return (request.requiresExternalPower && !conditions.externalPower)
            || (request.requiresNetworkConnectivity && !conditions.network)
    }
}
