import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderSystem
package import Logging

/// The location capability's bookkeeping for every app: grants, listeners with their
/// filters, the shared region monitor, and where each app's delivery stands.
package struct LocationBook: Sendable {
    /// Where one app's delivery stands on its current connection.
    package struct Delivery: Sendable {
        /// Events up to this `seq` were sent on the app's current connection.
        package var sentThrough: Int64 = 0
        /// Nothing in the app's queue is unsent: the last read of it came back short, and every
        /// event since was sent as it was queued. A new event can then go to the app as it is
        /// stored, without reading the queue back.
        package var caughtUp = false
        /// The app's location manager has a delegate, so events can be sent.
        package var ready = false
        /// Events for the app the store could not take since it was last told, and why.
        package var unstoredEvents = 0
        package var unstoredReason: String?
    }

    /// What each app asked for, by bundle identifier (stored durably).
    package var listeners: [BundleID: LocationListener] = [:]
    /// Delivery to each app that has a location manager or monitors regions.
    package var deliveries: [BundleID: Delivery] = [:]
    /// What people granted, by bundle identifier.
    package var authorizations: [BundleID: LocationAuthorization] = [:]
    /// Every app's regions, with their confirmed states.
    package var monitor = RegionMonitor()
    /// The last fix, for `requestState`.
    package var lastFix: Location?
    /// Whether gpsd is connected, and why not. Nothing is known to be wrong until a
    /// connection fails: gpsd is watched only while an app needs fixes, and an app that
    /// subscribes hears `didFail` only if the connection its subscription starts fails.
    package var available = true
    package var unavailableDetail: String?

    /// Loads grants, subscriptions and regions from the store; a region the monitor now
    /// refuses (a stricter release) is dropped with a message.
    package init(store: StateStore, logger: Logger) {
        authorizations = (try? store.locationAuthorizations()) ?? [:]
        for (identifier, subscription) in (try? store.locationSubscriptions()) ?? [:] {
            listeners[identifier] = LocationListener(subscription)
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
    package func authorization(_ identifier: BundleID) -> LocationAuthorization {
        authorizations[identifier] ?? .notDetermined
    }

    /// What the app subscribed to.
    package func subscription(_ identifier: BundleID) -> LocationSubscription {
        listeners[identifier]?.subscription ?? LocationSubscription()
    }
}
