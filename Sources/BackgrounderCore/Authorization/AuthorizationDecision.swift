/// A person's yes or no to an app, for the services that have no levels: the microphone and
/// notifications. A person decides with `bgctl authorize ID SERVICE [granted|denied]`; the
/// daemon stores the answer, and an app's request for it only reads it (and is logged, so a
/// person sees the app asked).
public enum AuthorizationDecision: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nobody has decided yet: the app may not use the service.
    case notDetermined
    /// A person allowed it.
    case granted
    /// A person refused it.
    case denied

    /// Parses what a person types: `granted` (or nothing, the default) or `denied`.
    public init?(grant: String) {
        switch grant.lowercased() {
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

/// Whether an app may record, as `AVAudioApplication.recordPermission`.
public typealias MicrophoneAuthorization = AuthorizationDecision

/// Whether an app may post notifications, as `UNAuthorizationStatus`.
public typealias NotificationAuthorization = AuthorizationDecision

/// Whether an app may read the person's music folder, as `MPMediaLibraryAuthorizationStatus`.
public typealias MediaLibraryAuthorization = AuthorizationDecision
