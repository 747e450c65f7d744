/// Something other than a finite-length task that keeps an app running in the background
/// with no time limit, as iOS's background modes do while they are in use. The raw value is
/// how `bgctl ps` shows it (tasks show as `task:NAME` beside these).
public enum BackgroundAssertion: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// One of the app's audio streams plays or records, and its session may go on in the
    /// background (the `audio` mode and a category that continues there).
    case audio
    /// The app receives standard location updates in the background (the `location` mode,
    /// "always" authorization, and updates that are not deferred).
    case location

    /// By name, so `bgctl ps` lists them in a stable order.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
