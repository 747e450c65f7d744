/// The desktop as the daemon reaches it over D-Bus, for `bgctl status`: each part says what it
/// found or why it is absent, because without a bus the daemon runs on without these.
public struct DesktopStatus: Sendable, Hashable, Codable {
    /// The session bus (MPRIS players, notifications, UnifiedPush).
    public var sessionBus: ServiceConnection
    /// The system bus (logind).
    public var systemBus: ServiceConnection
    /// MPRIS players published for media apps.
    public var mediaPlayers: Int
    /// The notification server (`dunst 1.9.0`), or why notifications are only logged.
    public var notifications: String
    /// The screen lock as logind reports it, or why it is not followed.
    public var screenLock: String
    /// The UnifiedPush distributor in use, or why there is none.
    public var unifiedPush: String

    /// Creates a status.
    public init(
        sessionBus: ServiceConnection, systemBus: ServiceConnection, mediaPlayers: Int, notifications: String,
        screenLock: String, unifiedPush: String
    ) {
        self.sessionBus = sessionBus
        self.systemBus = systemBus
        self.mediaPlayers = mediaPlayers
        self.notifications = notifications
        self.screenLock = screenLock
        self.unifiedPush = unifiedPush
    }
}
