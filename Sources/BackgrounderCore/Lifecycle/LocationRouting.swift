/// What an app asked the location service for, as the settings of a `CLLocationManager`.
///
/// The daemon keeps it durably: a recorder that is suspended, killed or relaunched keeps its
/// subscription, so its fixes queue until it can take them.
public struct LocationSubscription: Sendable, Hashable, Codable {
    /// Standard updates and their filter, or `nil` when they are off.
    public var standard: StandardUpdateFilter.Configuration?
    /// `allowsBackgroundLocationUpdates`: standard updates continue in the background (needs
    /// the `location` mode and "always").
    public var allowsBackgroundUpdates: Bool
    /// Deferred updates: the app may be suspended while fixes queue, and is woken with them
    /// in one batch after this much travel or time.
    public var deferral: LocationDeferral?
    /// Significant-change monitoring is on.
    public var significantChanges: Bool

    /// Creates a subscription; the default is nothing.
    public init(
        standard: StandardUpdateFilter.Configuration? = nil,
        allowsBackgroundUpdates: Bool = false,
        deferral: LocationDeferral? = nil,
        significantChanges: Bool = false
    ) {
        self.standard = standard
        self.allowsBackgroundUpdates = allowsBackgroundUpdates
        self.deferral = deferral
        self.significantChanges = significantChanges
    }

    /// Whether the subscription asks for nothing.
    public var isEmpty: Bool { standard == nil && !significantChanges }
}

/// `allowDeferredLocationUpdates(untilTraveled:timeout:)`: how long a suspended app's fixes
/// may wait before it is woken to take them.
public struct LocationDeferral: Sendable, Hashable, Codable {
    /// Metres between the first queued fix and the latest before the app is woken.
    public var distance: Double?
    /// Seconds of fix time between them before the app is woken.
    public var timeout: Double?

    /// Creates a deferral; with neither limit, fixes wait until something else wakes the app.
    public init(distance: Double? = nil, timeout: Double? = nil) {
        self.distance = distance
        self.timeout = timeout
    }

    /// Whether the app should be woken now that `latest` has queued behind `first`.
    public func isDue(first: Location, latest: Location) -> Bool {
        if let distance, first.coordinate.distance(to: latest.coordinate) >= distance { return true }
        if let timeout, latest.timestamp - first.timestamp >= timeout { return true }
        return false
    }
}

/// Where a fix or region event goes for one app: the background-location rules of iOS in
/// one pure function, beside ``EventRouting``.
public enum LocationRouting {
    /// What produced the event.
    public enum Source: String, Sendable, Hashable {
        /// A standard update that passed the app's filter.
        case standard
        /// A significant-change fix.
        case significantChange
        /// A region entry or exit.
        case region
    }

    /// The daemon's answer for one event and one app. Every delivered event is also queued
    /// until the app acknowledges it, so a crash between delivery and saving loses nothing.
    public enum Decision: Sendable, Hashable {
        /// Send it now.
        case deliver
        /// Keep it for when the app can take it.
        case queue
        /// Keep it and wake the suspended app.
        case queueAndWake
        /// Keep it and launch the app into the background (reason `location`).
        case queueAndLaunch
        /// The app does not get it, and why.
        case drop(String)
    }

    /// Whether standard updates may continue while the app is in the background: the
    /// `location` mode, "always", and `allowsBackgroundLocationUpdates`.
    public static func backgroundUpdatesAllowed(
        manifest: AppManifest, authorization: LocationAuthorization, subscription: LocationSubscription
    ) -> Bool {
        subscription.standard != nil && subscription.allowsBackgroundUpdates
            && manifest.backgroundModes.contains(.location) && authorization == .always
    }

    /// Whether the app holds the `location` assertion (runs in the background without a time
    /// limit). With a deferral it does not: it is suspended and woken with batches.
    public static func holdsAssertion(
        manifest: AppManifest, authorization: LocationAuthorization, subscription: LocationSubscription
    ) -> Bool {
        subscription.deferral == nil
            && backgroundUpdatesAllowed(manifest: manifest, authorization: authorization, subscription: subscription)
    }

    /// Decides where one event goes.
    /// - Parameters:
    ///   - source: What produced it.
    ///   - manifest: The app's manifest.
    ///   - authorization: What the person granted.
    ///   - subscription: What the app asked for.
    ///   - state: The app's life-cycle state.
    ///   - deferralDue: For a suspended app's standard updates: whether its deferral says wake now.
    /// - Returns: The decision.
    public static func decide(
        _ source: Source,
        manifest: AppManifest,
        authorization: LocationAuthorization,
        subscription: LocationSubscription,
        state: ApplicationState,
        deferralDue: Bool = false
    ) -> Decision {
        guard authorization.allowsLocation else {
            return .drop("location is not authorized (`bgctl authorize \(manifest.bundleIdentifier) location ...`)")
        }
        if state == .active || state == .inactive { return .deliver }
        switch source {
        case .standard:
            guard
                backgroundUpdatesAllowed(manifest: manifest, authorization: authorization, subscription: subscription)
            else {
                return .drop(
                    "standard updates stop in the background without the location mode, \"always\" and "
                        + "allowsBackgroundLocationUpdates")
            }
            switch state {
            case .background: return .deliver
            case .suspended: return deferralDue ? .queueAndWake : .queue
            case .notRunning, .active, .inactive: return .queue
            }
        case .significantChange, .region:
            // iOS relaunches for these without the location mode, but only with "always".
            guard authorization == .always else {
                return .drop("\(source.rawValue) events reach a background app only with \"always\" authorization")
            }
            switch state {
            case .background, .active, .inactive: return .deliver
            case .suspended: return .queueAndWake
            case .notRunning: return .queueAndLaunch
            }
        }
    }
}
