/// What a person grants an app access to, as iOS's privacy settings list them. The raw value
/// is how `bgctl authorize`, `AUTHORIZE` and the store spell it.
public enum AuthorizationService: String, Sendable, Hashable, Codable, CaseIterable {
    /// The device's position (``LocationAuthorization``).
    case location
    /// Recording (``MicrophoneAuthorization``).
    case microphone
    /// Posting local notifications (``NotificationAuthorization``).
    case notifications
    /// Reading the person's music folder (``MediaLibraryAuthorization``), as
    /// `MPMediaLibrary`.
    case mediaLibrary = "media-library"
}
