package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
import GRDB
package import Logging

/// Location for apps: grants, subscriptions, regions, and the routing of every fix, on the
/// app manager's actor so a fix and a life-cycle change never race.
///
/// Every event an app is to hear goes into its queue in the store first and leaves it only
/// when the app acknowledges it: a recorder that is suspended, killed or relaunched loses
/// no fix, at the price of sometimes hearing one twice (apps de-duplicate by fix time).
/// Requests are in LocationCapability+Requests.swift.
@AppCoreActor
package final class LocationCapability: AppCapability {
    package let store: StateStore
    /// Every change is looked at for a change in who needs the receiver (one pass over the
    /// listeners): no place that adds or drops a subscription or region can forget to.
    package var book: LocationBook {
        didSet { publishDemand() }
    }
    /// Who watches gpsd as the demand says (the location service, attached when it starts).
    private weak var receiver: (any LocationReceiver)?
    private var publishedDemand: ReceiverDemand?
    /// Who hears that a location trigger's region was crossed (the notification capability,
    /// wired by the composition); `nil` in a daemon without notifications.
    package weak var notificationTriggers: (any NotificationRegionCrossing)?

    /// Loads grants, subscriptions and regions from the store.
    package nonisolated init(store: StateStore, logger: Logger) {
        self.store = store
        self.book = LocationBook(store: store, logger: logger)
    }

    package var authorizationServices: [AuthorizationService] { [.location] }

    // MARK: The receiver

    /// Attaches what follows the demand for fixes, and tells it the demand now.
    package func attach(_ receiver: any LocationReceiver) {
        self.receiver = receiver
        publishedDemand = nil
        publishDemand()
    }

    /// Who needs fixes now.
    package var demand: ReceiverDemand { ReceiverDemand(book) }

    private func publishDemand() {
        guard let receiver else { return }
        let demand = ReceiverDemand(book)
        guard demand != publishedDemand else { return }
        publishedDemand = demand
        if !demand.isNeeded, !book.available {
            // Not watched any more: an old failure says nothing about the next connection,
            // which the next subscription starts (and whose failure it will hear). No one
            // listens now, so no one is told. (This runs didSet again, which stops at the guard
            // above: the demand is already published.)
            book.available = true
            book.unavailableDetail = nil
        }
        receiver.demandChanged(demand)
    }

    // MARK: The life cycle

    package func app(_ identifier: BundleID, changed change: LifecycleChange, in apps: any AppCore) {
        switch change {
        case .checkedIn:
            resetDelivery(identifier)
            updateAssertion(identifier, in: apps)
        case .moved(from: .suspended, to: _):
            // Fixes that queued while it was frozen go now.
            flush(identifier, in: apps)
        case .exited:
            resetDelivery(identifier)
        case .launched, .moved, .windowsClosed, .forceQuit, .assertionsChanged:
            break
        }
    }

    /// What the app subscribed to and monitored went with its identity; its grant is read
    /// again (an adopted one, or none).
    package func identityChanged(_ identifier: BundleID, in apps: any AppCore) {
        book.listeners[identifier] = nil
        book.deliveries[identifier] = nil
        book.monitor.removeAll(owner: .app(identifier))
        book.monitor.removeAll(owner: .notification(identifier))
        book.authorizations[identifier] = (try? store.locationAuthorizations())?[identifier]
    }

    /// A new process checked in or the old one is gone: nothing was sent to it yet.
    private func resetDelivery(_ identifier: BundleID) {
        if book.deliveries[identifier] != nil {
            book.deliveries[identifier]?.ready = false
            book.deliveries[identifier]?.sentThrough = 0
            book.deliveries[identifier]?.caughtUp = false
        }
        book.listeners[identifier]?.firstDeferred = nil
    }

    /// Takes or releases the `location` assertion as the grant and subscription now say.
    package func updateAssertion(_ identifier: BundleID, in apps: any AppCore) {
        guard let manifest = apps.manifest(of: identifier) else { return }
        let held = LocationRouting.holdsAssertion(
            manifest: manifest,
            authorization: book.authorization(identifier),
            subscription: book.subscription(identifier)
        )
        // Paused for standing still, it needs no fixes: it may be suspended until it moves.
        let paused = book.listeners[identifier]?.standard?.isPaused == true
        apps.setAssertion(.location, held: held && !paused, for: identifier)
    }

    // MARK: Fixes

    /// gpsd came or went: apps listening hear `didFail` or recover.
    package func serviceChanged(available: Bool, detail: String?, in apps: any AppCore) {
        guard book.available != available else { return }
        book.available = available
        book.unavailableDetail = available ? nil : detail
        for (identifier, delivery) in book.deliveries where delivery.ready {
            apps.notify(identifier, .locationStatus(status(for: identifier)))
        }
    }

    package func status(for identifier: BundleID, storageError: String? = nil) -> LocationServiceStatus {
        LocationServiceStatus(
            available: book.available, detail: book.unavailableDetail,
            authorization: book.authorization(identifier), storageError: storageError)
    }

    /// One de-duplicated fix from gpsd: through the region monitor and every app's filters
    /// (``FixDispatch``), into the queues, then delivered, or the app woken or relaunched.
    package func fix(_ fix: Location, in apps: any AppCore) {
        book.lastFix = fix
        let transitions = book.monitor.offer(fix)
        if !transitions.isEmpty {
            do {
                try store.saveRegionStates(transitions.map { ($0.owner, $0.region.identifier, $0.to) })
            } catch {
                apps.logger.error("cannot store region states: \(error)")
            }
        }
        for transition in transitions {
            apps.appLogger(transition.owner.bundle).info(
                "region '\(transition.region.identifier)': \(transition.from.rawValue) -> \(transition.to.rawValue)")
        }
        // Location triggers of notifications post without the app hearing the fix.
        postNotifications(for: transitions, in: apps)
        // Only the grants are captured: a copy of the whole book would share the listeners'
        // storage and make every fix copy them as FixDispatch advances their filters.
        let authorizations = book.authorizations
        let dispatch = FixDispatch(fix, transitions: transitions, listeners: &book.listeners) { owner in
            apps.manifest(of: owner).map {
                FixDispatch.Recipient(
                    manifest: $0, authorization: authorizations[owner] ?? .notDetermined,
                    state: apps.state(of: owner))
            }
        }
        for identifier in dispatch.significantChanges {
            apps.appLogger(identifier).info("significant location change")
        }
        // A pause lets the app be suspended; a resume holds it again (and wakes it, below).
        for (identifier, paused) in dispatch.pauseChanges.sorted(by: { $0.key < $1.key }) {
            apps.appLogger(identifier).info(
                paused ? "standing still: location updates paused" : "moving again: location updates resumed")
            updateAssertion(identifier, in: apps)
        }
        let queued = dispatch.events.map { event in
            StateStore.QueuedEvent(
                owner: event.owner, kind: LocationEvent.Kind(event.kind), location: event.location,
                region: event.region)
        }
        // Who hears its events now can have them as they are stored, not read back after,
        // and while the commit waits for the disk: a crash before the commit loses nothing
        // the app did not already have.
        let direct = Set(
            dispatch.decisions.compactMap { identifier, decision in
                sendsAsStored(identifier, decision, in: apps) ? identifier : nil
            })
        var sentBefore: [BundleID: Int64] = [:]
        for identifier in direct { sentBefore[identifier] = book.deliveries[identifier]?.sentThrough }
        do {
            try store.enqueue(queued) { stored in
                for identifier in direct.sorted() {
                    send(stored.compactMap { $0.owner == identifier ? $0.event : nil }, to: identifier, in: apps)
                }
            }
        } catch {
            // What the store recorded names the file and the cause (ENOSPC on a full disk).
            apps.logger.error(
                "cannot queue \(queued.count) location events: \(store.health.status.lastError ?? "\(error)")")
            // Those sent have them; their seqs were not kept (the store may give them again), so
            // the app cannot acknowledge them and its next delivery reads the queue.
            for (identifier, sent) in sentBefore {
                book.deliveries[identifier]?.sentThrough = sent
                book.deliveries[identifier]?.caughtUp = false
            }
            notStored(queued.filter { !direct.contains($0.owner) }, error, in: apps)
            return
        }
        for owner in Set(queued.map(\.owner)).subtracting(direct) {
            book.deliveries[owner]?.caughtUp = false
        }
        for (identifier, decision) in dispatch.decisions.sorted(by: { $0.key < $1.key })
        where !direct.contains(identifier) {
            switch decision {
            case .deliver: flush(identifier, in: apps)
            case .queue, .drop: break
            case .queueAndWake:
                guard apps.state(of: identifier) == .suspended else {
                    flush(identifier, in: apps)
                    continue
                }
                book.listeners[identifier]?.firstDeferred = nil
                // Woken or launched for location, an app has the policy's location window.
                if apps.wakeIfSuspended(identifier, because: "location") {
                    apps.openEventWindow(identifier, kind: .location)
                }
            case .queueAndLaunch:
                do {
                    try apps.launchInBackground(identifier, reason: .location)
                    apps.openEventWindow(identifier, kind: .location)
                } catch {
                    apps.appLogger(identifier).warning("not relaunched for location: \(error.message)")
                }
            }
        }
    }

    /// Events the store could not take (a full disk) are lost: each app is told how many
    /// when it can next hear (now, or at its next delivery), never woken for it.
    private func notStored(_ events: [StateStore.QueuedEvent], _ error: any Error, in apps: any AppCore) {
        let reason =
            (error as? DatabaseError).map { StorageHealthRecorder.describe($0, path: store.path) } ?? "\(error)"
        for owner in Set(events.map(\.owner)) {
            let count = events.count { $0.owner == owner }
            book.deliveries[owner, default: LocationBook.Delivery()].unstoredEvents += count
            book.deliveries[owner]?.unstoredReason = reason
            apps.appLogger(owner).error("\(count) location events not stored: \(reason)")
            flush(owner, in: apps)
        }
    }

    // MARK: Delivery

    /// Whether the app's events from this fix can go to it as they are stored: it hears now
    /// (``flush(_:in:)``'s conditions) and was sent everything queued before.
    private func sendsAsStored(_ identifier: BundleID, _ decision: LocationRouting.Decision, in apps: any AppCore)
        -> Bool
    {
        switch decision {
        case .deliver, .queueAndWake: break
        case .queue, .drop, .queueAndLaunch: return false
        }
        guard let delivery = book.deliveries[identifier], delivery.ready, delivery.caughtUp,
            delivery.unstoredEvents == 0, apps.canHear(identifier), apps.state(of: identifier) != .suspended
        else { return false }
        return true
    }

    private func send(_ events: [LocationEvent], to identifier: BundleID, in apps: any AppCore) {
        guard let last = events.last else { return }
        apps.notify(identifier, .locations(LocationBatch(events: events)))
        book.deliveries[identifier]?.sentThrough = last.seq
        book.listeners[identifier]?.firstDeferred = nil
    }

    /// Sends the app what waits in its queue beyond what it was already sent, when it can take it.
    package func flush(_ identifier: BundleID, in apps: any AppCore) {
        guard var delivery = book.deliveries[identifier], delivery.ready, apps.canHear(identifier),
            apps.state(of: identifier) != .suspended
        else { return }
        let events: [LocationEvent]
        do {
            events = try store.queuedEvents(
                for: identifier, after: delivery.sentThrough, limit: LocationBatch.maximumEvents)
        } catch {
            apps.appLogger(identifier).error("cannot read queued location events: \(error)")
            return
        }
        if delivery.unstoredEvents > 0 {
            let reason = delivery.unstoredReason ?? "the state database failed"
            apps.notify(
                identifier,
                .locationStatus(
                    status(
                        for: identifier,
                        storageError:
                            "\(delivery.unstoredEvents) location events could not be stored and are lost: \(reason)"
                    )))
            delivery.unstoredEvents = 0
            delivery.unstoredReason = nil
            book.deliveries[identifier] = delivery
        }
        delivery.caughtUp = events.count < LocationBatch.maximumEvents
        book.deliveries[identifier] = delivery
        send(events, to: identifier, in: apps)
    }
}

extension LocationEvent.Kind {
    package init(_ kind: FixDispatch.Event.Kind) {
        switch kind {
        case .location: self = .location
        case .enter: self = .enter
        case .exit: self = .exit
        case .paused: self = .paused
        case .resumed: self = .resumed
        }
    }
}
