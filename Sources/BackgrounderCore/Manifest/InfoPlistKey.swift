/// The `Info.plist` keys Backgrounder reads, spelled as iOS spells them.
public enum InfoPlistKey: String, Sendable, CaseIterable, CodingKey {
    case bundleIdentifier = "CFBundleIdentifier"
    case bundleName = "CFBundleName"
    case bundleExecutable = "CFBundleExecutable"
    case packageType = "CFBundlePackageType"
    case policyEntryPoint = "BackgrounderPolicyEntryPoint"
    case policySchedulingEntryPoint = "BackgrounderPolicySchedulingEntryPoint"
    case backgroundModes = "UIBackgroundModes"
    case exitsOnSuspend = "UIApplicationExitsOnSuspend"
    case permittedTaskIdentifiers = "BGTaskSchedulerPermittedIdentifiers"
    case locationAlwaysAndWhenInUseUsage = "NSLocationAlwaysAndWhenInUseUsageDescription"
    case locationWhenInUseUsage = "NSLocationWhenInUseUsageDescription"
    case microphoneUsage = "NSMicrophoneUsageDescription"
}
