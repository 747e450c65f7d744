public import BackgrounderCore

/// `PERMISSIONS`: asks what people granted (`bgctl permissions [ID]`); it changes nothing,
/// `AUTHORIZE` alone does.
public struct PermissionsQuery: Sendable, Hashable, Codable {
    /// One app; absent for every app.
    public var bundle: BundleID?

    /// Creates a query.
    public init(bundle: BundleID? = nil) {
        self.bundle = bundle
    }
}

/// `PERMISSIONS` reply: the stored grants of every loaded app, and of apps no longer loaded
/// that still have grants stored.
public struct PermissionList: Sendable, Hashable, Codable {
    /// One app's grants.
    public struct Entry: Sendable, Hashable, Codable {
        /// The app's `CFBundleIdentifier`.
        public var bundle: BundleID
        /// `CFBundleName`, when the bundle is loaded.
        public var name: String?
        /// Whether the bundle is loaded now.
        public var loaded: Bool
        /// The location grant.
        public var location: LocationAuthorization
        /// When a person last changed it, in seconds since 1970; absent if never.
        public var locationChangedAt: Double?
        /// The microphone grant.
        public var microphone: MicrophoneAuthorization
        /// When a person last changed it, in seconds since 1970; absent if never.
        public var microphoneChangedAt: Double?
        /// The notifications grant (absent from daemons before protocol 1.4).
        public var notifications: NotificationAuthorization?
        /// When a person last changed it, in seconds since 1970; absent if never.
        public var notificationsChangedAt: Double?
        /// The music library grant (absent from daemons before protocol 1.9).
        public var mediaLibrary: MediaLibraryAuthorization?
        /// When a person last changed it, in seconds since 1970; absent if never.
        public var mediaLibraryChangedAt: Double?

        /// Creates an entry.
        public init(
            bundle: BundleID, name: String? = nil, loaded: Bool, location: LocationAuthorization,
            locationChangedAt: Double? = nil, microphone: MicrophoneAuthorization, microphoneChangedAt: Double? = nil,
            notifications: NotificationAuthorization? = nil, notificationsChangedAt: Double? = nil
        ) {
            self.bundle = bundle
            self.name = name
            self.loaded = loaded
            self.location = location
            self.locationChangedAt = locationChangedAt
            self.microphone = microphone
            self.microphoneChangedAt = microphoneChangedAt
            self.notifications = notifications
            self.notificationsChangedAt = notificationsChangedAt
        }
    }

    /// The apps, sorted by identifier.
    public var apps: [Entry]

    /// Creates a list.
    public init(apps: [Entry]) {
        self.apps = apps
    }
}
