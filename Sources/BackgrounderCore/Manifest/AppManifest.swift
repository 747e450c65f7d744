/// What an app bundle's `Info.plist` declares, after validation.
///
/// Only keys Backgrounder acts on are modelled; other keys are ignored, as iOS ignores
/// keys it does not know.
public struct AppManifest: Sendable, Hashable, Codable {
    /// `CFBundleIdentifier`: reverse-DNS identity, unique among loaded bundles.
    public var bundleIdentifier: BundleID
    /// `CFBundleName`: the short name shown to people.
    public var name: String
    /// `CFBundleExecutable`: the executable's path relative to the bundle directory.
    public var executable: String
    /// `UIBackgroundModes` that Backgrounder honours.
    public var backgroundModes: Set<BackgroundMode>
    /// `UIBackgroundModes` entries accepted for compatibility that grant nothing on Linux.
    public var modesWithoutLinuxMeaning: [String]
    /// `UIApplicationExitsOnSuspend`: terminate instead of suspending.
    public var exitsOnSuspend: Bool
    /// `BGTaskSchedulerPermittedIdentifiers`: task identifiers the app may schedule.
    public var permittedTaskIdentifiers: [String]
    /// The usage descriptions shown when the app asks for a permission.
    public var usageDescriptions: UsageDescriptions
    /// `BGAllowsJIT`: the app makes machine code at run time (a JavaScript or Java virtual
    /// machine), so the sandbox lets its memory be writable and executable and lets it use
    /// memfds; without it, an app runs only the code its files hold.
    public var allowsJIT = false
    /// An app, or a policy plug-in (`CFBundlePackageType` `BNDL`).
    public var kind: BundleKind = .application
    /// For a policy plug-in: the C function the daemon calls (`BackgrounderPolicyEntryPoint`).
    public var policyEntryPoint: String?
    /// For a policy plug-in: the optional C function that gives scheduling numbers per app and
    /// power state (`BackgrounderPolicySchedulingEntryPoint`).
    public var policySchedulingEntryPoint: String?

    /// Creates a manifest; validation lives in ``ManifestValidator``.
    public init(
        bundleIdentifier: BundleID,
        name: String,
        executable: String,
        backgroundModes: Set<BackgroundMode> = [],
        modesWithoutLinuxMeaning: [String] = [],
        exitsOnSuspend: Bool = false,
        permittedTaskIdentifiers: [String] = [],
        usageDescriptions: UsageDescriptions = UsageDescriptions()
    ) {
        self.bundleIdentifier = bundleIdentifier
        self.name = name
        self.executable = executable
        self.backgroundModes = backgroundModes
        self.modesWithoutLinuxMeaning = modesWithoutLinuxMeaning
        self.exitsOnSuspend = exitsOnSuspend
        self.permittedTaskIdentifiers = permittedTaskIdentifiers
        self.usageDescriptions = usageDescriptions
    }

    /// The declared modes as iOS spells them, sorted, for display.
    public var sortedModeNames: [String] {
        backgroundModes.map(\.rawValue).sorted()
    }
}

/// What a bundle holds.
public enum BundleKind: String, Sendable, Hashable, Codable {
    /// An app: an executable the daemon launches (`CFBundlePackageType` `APPL`, the default).
    case application
    /// A policy plug-in: a shared library the daemon loads (`CFBundlePackageType` `BNDL`).
    case policy
}

/// The `NS…UsageDescription` strings a manifest carries.
public struct UsageDescriptions: Sendable, Hashable, Codable {
    /// `NSLocationAlwaysAndWhenInUseUsageDescription`.
    public var locationAlwaysAndWhenInUse: String?
    /// `NSLocationWhenInUseUsageDescription`.
    public var locationWhenInUse: String?
    /// `NSMicrophoneUsageDescription`.
    public var microphone: String?
    /// `NSAppleMusicUsageDescription`: the person's music library.
    public var mediaLibrary: String?

    /// Creates a set of usage descriptions.
    public init(
        locationAlwaysAndWhenInUse: String? = nil, locationWhenInUse: String? = nil, microphone: String? = nil,
        mediaLibrary: String? = nil
    ) {
        self.locationAlwaysAndWhenInUse = locationAlwaysAndWhenInUse
        self.locationWhenInUse = locationWhenInUse
        self.microphone = microphone
        self.mediaLibrary = mediaLibrary
    }
}
