/// Whose a monitored region is: an app's own (`startMonitoring(for:)`), or the location
/// trigger of one of an app's notification requests, whose crossing posts the notification
/// and never reaches the app (it is neither woken nor launched for it).
public enum RegionOwner: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The app's own region; a crossing is delivered to the app.
    case app(BundleID)
    /// A notification request's trigger region, of this app.
    case notification(BundleID)

    /// The app the region is for, either way.
    public var bundle: BundleID {
        switch self {
        case .app(let bundle), .notification(let bundle): bundle
        }
    }

    /// As the state store keeps it: the bundle identifier for an app's own, `notification:`
    /// and the bundle identifier for a notification's (a bundle identifier cannot hold `:`).
    public var stored: String {
        switch self {
        case .app(let bundle): bundle.rawValue
        case .notification(let bundle): Self.notificationPrefix + bundle.rawValue
        }
    }

    /// Reads an owner as the state store keeps it (``stored``).
    public init(stored: String) {
        self =
            stored.hasPrefix(Self.notificationPrefix)
            ? .notification(BundleID(String(stored.dropFirst(Self.notificationPrefix.count))))
            : .app(BundleID(stored))
    }

    public var description: String { stored }

    private static let notificationPrefix = "notification:"
}
