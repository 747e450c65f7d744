/// Whether an app may post notifications, as `UNAuthorizationStatus`. A person grants it with
/// `bgctl authorize ID notifications granted|denied`; the daemon stores the answer. An app's
/// `requestAuthorization` only reads it (and is logged, so a person sees the app asked).
public enum NotificationAuthorization: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nobody has decided yet: the app may not add requests.
    case notDetermined
    /// A person allowed notifications.
    case granted
    /// A person refused them.
    case denied

    /// Parses what a person types: `granted` (or nothing, the default) or `denied`.
    public init?(grant: String) {
        switch grant {
        case "granted", "": self = .granted
        case "denied": self = .denied
        default: return nil
        }
    }

    /// How `bgctl authorize` and `bgctl permissions` spell it.
    public var grantWord: String { self == .notDetermined ? "not-determined" : rawValue }

    /// The words `bgctl authorize` takes.
    public static let grantWords = ["granted", "denied"]
}
