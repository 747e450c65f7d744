/// Whether an app may use location, as `CLAuthorizationStatus`. A person grants it with
/// `bgctl authorize ID location always|when-in-use|never`; the daemon stores the answer.
public enum LocationAuthorization: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nobody has decided yet: the app gets no location.
    case notDetermined
    /// A person said never.
    case denied
    /// Location only while the app is in the foreground.
    case whenInUse
    /// Location in the background too, and relaunch for significant changes and regions.
    case always

    /// Parses what a person types: `always`, `when-in-use` or `never`.
    public init?(grant: String) {
        // Case and separators do not matter: ALWAYS, when-in-use and CoreLocation's
        // whenInUse are all one word to a person.
        switch grant.lowercased().filter({ $0 != "-" && $0 != "_" }) {
        case "always": self = .always
        case "wheninuse": self = .whenInUse
        case "never", "denied": self = .denied
        default: return nil
        }
    }

    /// Whether any location reaches the app.
    public var allowsLocation: Bool { self == .whenInUse || self == .always }

    /// How `bgctl authorize` and `bgctl permissions` spell it.
    public var grantWord: String {
        switch self {
        case .notDetermined: "not-determined"
        case .denied: "never"
        case .whenInUse: "when-in-use"
        case .always: "always"
        }
    }

    /// The words `bgctl authorize` takes.
    public static let grantWords = ["always", "when-in-use", "never"]
}

extension AppManifest {
    /// Why this app may not ask for `level`, or `nil` when its manifest carries the usage
    /// description iOS requires for it (an app without one cannot even ask).
    /// - Parameter level: `always` or `whenInUse`.
    public func missingLocationUsageDescription(for level: LocationAuthorization) -> String? {
        switch level {
        case .always where usageDescriptions.locationAlwaysAndWhenInUse == nil:
            return "\(bundleIdentifier)'s Info.plist has no \(InfoPlistKey.locationAlwaysAndWhenInUseUsage.rawValue), "
                + "which \"always\" location needs"
        case .whenInUse
        where usageDescriptions.locationWhenInUse == nil && usageDescriptions.locationAlwaysAndWhenInUse == nil:
            return "\(bundleIdentifier)'s Info.plist has no \(InfoPlistKey.locationWhenInUseUsage.rawValue), "
                + "which location needs"
        default:
            return nil
        }
    }
}
