/// Whether an app may record, as `AVAudioApplication.recordPermission`. A person grants it
/// with `bgctl authorize ID microphone [granted|denied]`; the daemon stores the answer.
public enum MicrophoneAuthorization: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nobody has decided yet: no recording.
    case notDetermined
    /// A person granted it.
    case granted
    /// A person refused it.
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
