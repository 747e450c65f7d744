/// A reason an app may keep running after it leaves the foreground, as declared in
/// `UIBackgroundModes`. The raw values are iOS's own strings.
public enum BackgroundMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Plays or records audio while in the background.
    case audio
    /// Keeps receiving standard location updates while in the background.
    case location
    /// Is woken from time to time to fetch content.
    case fetch
    /// Runs deferrable processing tasks scheduled with the task scheduler.
    case processing
    /// Is woken by a push to fetch what it announces.
    case remoteNotification = "remote-notification"
    /// Keeps a voice-over-IP connection.
    case voip

    /// iOS modes that name hardware or services Linux has no counterpart for here.
    /// A manifest may declare them (so an iOS manifest loads unchanged); they grant nothing.
    public static let withoutLinuxMeaning: Set<String> = [
        "external-accessory", "bluetooth-central", "bluetooth-peripheral", "newsstand-content",
    ]
}
