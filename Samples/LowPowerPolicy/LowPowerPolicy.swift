public import CBackgrounderPolicy

/// A low-power policy: half the background time and half the grace of the standard policy,
/// and iOS's 20 monitored regions per app, for a battery that matters more than unfinished work.
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
