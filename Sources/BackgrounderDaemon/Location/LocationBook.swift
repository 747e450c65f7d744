import BackgrounderCore
import Logging

/// The location service's bookkeeping for every app, kept by ``AppManager`` (on its actor,
/// so a fix and a life-cycle change never race): grants, subscriptions with their filters,
/// the shared region monitor, and where each app's delivery stands.
struct LocationBook: Sendable {
    /// One app's location state.
    struct Entry: Sendable {
        /// What it asked for (stored durably).
        var subscription = LocationSubscription()
        /// The standard-update filter, while standard updates are on.
        var standard: StandardUpdateFilter?
        /// The significant-change filter, while that monitoring is on.
        var significant: SignificantChangeFilter?
        /// The first fix that queued since the app was suspended, for its deferral.
        var firstDeferred: Location?
        /// Events up to this `seq` were sent on the app's current connection.
        var sentThrough: Int64 = 0
        /// The app's location manager has a delegate, so events can be sent.
        var ready = false

        /// Applies a new subscription, keeping filter state when a filter's settings did not change.
        mutating func apply(_ new: LocationSubscription) {
            if new.standard != subscription.standard || standard == nil {
                standard = new.standard.map { StandardUpdateFilter($0) }
            }
            if !new.significantChanges {
                significant = nil
            } else if significant == nil {
                significant = SignificantChangeFilter()
            }
            if new.standard == nil { firstDeferred = nil }
            subscription = new
        }
    }

    /// Per app, by bundle identifier.
    var entries: [String: Entry] = [:]
    /// What people granted, by bundle identifier.
    var authorizations: [String: LocationAuthorization] = [:]
    /// Every app's regions, with their confirmed states.
    var monitor = RegionMonitor()
    /// The last fix, for `requestState`.
    var lastFix: Location?
    /// Whether gpsd is connected, and why not.
    var available = false
    var unavailableDetail: String? = "not connected yet"

    /// Loads grants, subscriptions and regions from the store; a region the monitor now
    /// refuses (a stricter release) is dropped with a message.
    init(store: StateStore, logger: Logger) {
        authorizations = (try? store.locationAuthorizations()) ?? [:]
        for (identifier, subscription) in (try? store.locationSubscriptions()) ?? [:] {
            var entry = Entry()
            entry.apply(subscription)
            entries[identifier] = entry
        }
        for stored in (try? store.monitoredRegions()) ?? [] {
            do {
                try monitor.add(stored.region, owner: stored.owner, state: stored.state)
            } catch {
                logger.warning("stored region of \(stored.owner) dropped: \(error)")
                try? store.removeRegion(stored.region.identifier, owner: stored.owner)
            }
        }
    }

    /// The app's grant.
    func authorization(_ identifier: String) -> LocationAuthorization {
        authorizations[identifier] ?? .notDetermined
    }
}
