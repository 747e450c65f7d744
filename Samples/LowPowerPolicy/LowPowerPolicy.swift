public import CBackgrounderPolicy

/// A low-power policy: half the background time and half the grace of the standard policy,
/// and iOS's 20 monitored regions per app, for a battery that matters more than unfinished work.
/// On battery it also fetches less and wakes less (``lowPowerScheduling(_:_:_:)``).
///
/// Built as a dynamic library and bundled with its Info.plist; load it with
/// `backgrounderd --policy org.backgrounder.samples.lowpower`.
@_cdecl("backgrounder_low_power_policy")
public func lowPowerPolicy(_ policy: UnsafeMutablePointer<backgrounder_policy_v1>?) -> Int32 {
    guard let policy, policy.pointee.abi == BACKGROUNDER_POLICY_ABI_V1 else { return -1 }
    policy.pointee.task_budget /= 2
    policy.pointee.suspend_grace /= 2
    policy.pointee.expiration_warning = min(policy.pointee.expiration_warning, policy.pointee.task_budget / 2)
    policy.pointee.maximum_regions_per_app = 20
    return 0
}

/// The low-power scheduling numbers: on battery, no app fetches more often than once an hour,
/// silent pushes come one at a time (a burst of 1), and due fetches wait up to 30 minutes so
/// more of them share a wake-up. On external power the standard numbers stand.
@_cdecl("backgrounder_low_power_scheduling")
public func lowPowerScheduling(
    _ bundleIdentifier: UnsafePointer<CChar>?, _ onExternalPower: Int32,
    _ numbers: UnsafeMutablePointer<backgrounder_scheduling_v1>?
) -> Int32 {
    guard let numbers, numbers.pointee.abi == BACKGROUNDER_SCHEDULING_ABI_V1 else { return -1 }
    guard onExternalPower == 0 else { return 0 }
    numbers.pointee.minimum_fetch_interval = max(numbers.pointee.minimum_fetch_interval, 3600)
    numbers.pointee.push_burst = 1
    numbers.pointee.fetch_tolerance = max(numbers.pointee.fetch_tolerance, 1800)
    return 0
}
