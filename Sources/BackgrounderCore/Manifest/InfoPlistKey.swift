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
    /// Backgrounder's own, after macOS's `com.apple.security.cs.allow-jit` entitlement: the
    /// app makes machine code at run time, so its memory may be writable and executable.
    case allowsJIT = "BGAllowsJIT"
    case permittedTaskIdentifiers = "BGTaskSchedulerPermittedIdentifiers"
    case locationAlwaysAndWhenInUseUsage = "NSLocationAlwaysAndWhenInUseUsageDescription"
    case locationWhenInUseUsage = "NSLocationWhenInUseUsageDescription"
    case microphoneUsage = "NSMicrophoneUsageDescription"
    /// Why the app asks for the person's music library (iOS's media library key): a person
    /// who allows it lets the app read their music folder, and nothing else of theirs.
    case mediaLibraryUsage = "NSAppleMusicUsageDescription"
}
