import BackgrounderCore
import BackgrounderProtocol
import Logging

/// The location service's side of ``AppManager``: grants, subscriptions, regions, and the
/// routing of every fix, on the same actor as the life cycle so the two never disagree.
///
/// Every event an app is to hear goes into its queue in the store first and leaves it only
/// when the app acknowledges it: a recorder that is suspended, killed or relaunched loses
/// no fix, at the price of sometimes hearing one twice (apps de-duplicate by fix time).
extension AppManager {
    // MARK: Grants

    /// `bgctl authorize ID location LEVEL`.
    func authorize(_ request: Authorize) throws(ProtocolError) -> Done {
        let identifier = request.bundle
        if request.service == "microphone" { return try authorizeMicrophone(request) }
        let manifest = try app(identifier).bundle.manifest
        guard request.service == "location" else {
            throw ProtocolError(.failed, "unknown service '\(request.service)' (known: location, microphone)")
        }
        guard let level = LocationAuthorization(grant: request.level) else {
            throw ProtocolError(
                .failed,
                "'\(request.level)' is not a location grant (use \(LocationAuthorization.grantWords.joined(separator: ", ")))"
            )
        }
        if let missing = manifest.missingLocationUsageDescription(for: level) {
            throw ProtocolError(.failed, "cannot grant: \(missing)")
        }
        do {
            try store.setAuthorization(identifier, service: "location", level: level.rawValue)
        } catch {
            throw ProtocolError(.failed, "cannot store the grant: \(error)")
        }
        location.authorizations[identifier] = level
        appLogger(identifier).notice("location authorization is now \(level.rawValue)")
        notify(identifier, .authorization(AuthorizationStatus(location: level)))
        updateLocationAssertion(identifier)
        flushLocations(identifier)
        return Done(detail: "\(identifier): location \(request.level)")
    }

    /// `LOCATION_AUTHORIZATION` from an app: checks the usage description and answers with the grant.
    func requestLocationAuthorization(_ identifier: String, level: LocationAuthorization?) throws(ProtocolError)
        -> AuthorizationStatus
    {
        let manifest = try app(identifier).bundle.manifest
        if let level, let missing = manifest.missingLocationUsageDescription(for: level) {
            throw ProtocolError(.failed, missing)
        }
        let current = location.authorization(identifier)
        if let level, current == .notDetermined {
            let word = level == .always ? "always" : "when-in-use"
            appLogger(identifier).notice(
                "asks for \(word) location; a person grants it with `bgctl authorize \(identifier) location \(word)`")
        }
        return AuthorizationStatus(location: current)
    }

    // MARK: Updates

    /// `LOCATION_UPDATES` from an app: what it wants from now on.
    func setLocationSubscription(_ identifier: String, _ requested: LocationSubscription) throws(ProtocolError)
        -> Done
    {
        let manifest = try app(identifier).bundle.manifest
        var subscription = requested
        if let standard = subscription.standard {
            guard standard.desiredAccuracy.isFinite,
                standard.distanceFilter.map({ $0.isFinite && $0 >= 0 }) ?? true,
                standard.staleAfter.isFinite && standard.staleAfter > 0
            else {
                throw ProtocolError(
                    .badRequest, "standard: desiredAccuracy, distanceFilter and staleAfter must be finite")
            }
        }
        if let deferral = subscription.deferral,
            !(deferral.distance.map { $0.isFinite && $0 > 0 } ?? true
                && deferral.timeout.map { $0.isFinite && $0 > 0 } ?? true)
        {
            throw ProtocolError(.badRequest, "deferral: distance and timeout must be positive")
        }
        guard subscription.isEmpty || location.authorization(identifier).allowsLocation else {
            throw ProtocolError(
                .failed,
                "location is not authorized for \(identifier); a person grants it with "
                    + "`bgctl authorize \(identifier) location always|when-in-use`"
            )
        }
        var notes: [String] = []
        if subscription.allowsBackgroundUpdates && !manifest.backgroundModes.contains(.location) {
            subscription.allowsBackgroundUpdates = false
            notes.append("allowsBackgroundLocationUpdates ignored: no `location` in UIBackgroundModes")
        }
        do {
            try store.setLocationSubscription(identifier, subscription)
            if subscription.isEmpty { try store.dropQueuedFixes(for: identifier) }
        } catch {
            throw ProtocolError(.failed, "cannot store the subscription: \(error)")
        }
        var entry = location.entries[identifier] ?? LocationBook.Entry()
        entry.apply(subscription)
        location.entries[identifier] = entry
        updateLocationAssertion(identifier)
        if !location.available {
            notify(identifier, .locationStatus(status(for: identifier)))
        }
        let what =
            [
                subscription.standard.map { _ in "standard updates" },
                subscription.significantChanges ? "significant changes" : nil,
            ]
            .compactMap { $0 }
        appLogger(identifier).info("location: \(what.isEmpty ? "off" : what.joined(separator: " and "))")
        return Done(
            detail: ([what.isEmpty ? "location off" : what.joined(separator: ", ")] + notes).joined(separator: "; "))
    }

    /// `LOCATION_READY` from an app: its location manager has a delegate, so anything queued can go.
    func locationReady(_ identifier: String) -> Done {
        var entry = location.entries[identifier] ?? LocationBook.Entry()
        entry.ready = true
        // Whatever was sent on an earlier connection and not acknowledged goes again.
        entry.sentThrough = 0
        location.entries[identifier] = entry
        flushLocations(identifier)
        return Done(detail: "ready")
    }

    /// `LOCATION_ACK` from an app.
    func acknowledgeLocations(_ identifier: String, through seq: Int64) -> Done {
        do {
            try store.acknowledge(identifier, through: seq)
        } catch {
            appLogger(identifier).error("cannot forget acknowledged location events: \(error)")
        }
        flushLocations(identifier)
        return Done(detail: "acknowledged through \(seq)")
    }

    // MARK: Regions

    /// `REGION_START` from an app.
    func startMonitoring(_ identifier: String, _ region: CircularRegion) throws(ProtocolError) -> Done {
        let manifest = try app(identifier).bundle.manifest
        guard location.authorization(identifier).allowsLocation else {
            throw ProtocolError(
                .failed,
                "region monitoring is not authorized for \(identifier); a person grants it with "
                    + "`bgctl authorize \(identifier) location always`"
            )
        }
        let limit = policy.maximumMonitoredRegions(for: manifest)
        let replacing = location.monitor.state(of: region.identifier, owner: identifier) != nil
        guard replacing || location.monitor.count(owner: identifier) < limit else {
            throw ProtocolError(
                .failed,
                "region '\(region.identifier)': \(identifier) already monitors \(limit) regions, the policy's limit")
        }
        do {
            try location.monitor.add(region, owner: identifier)
        } catch {
            throw ProtocolError(.badRequest, error.description)
        }
        do {
            try store.saveRegion(region, owner: identifier, state: .unknown)
        } catch {
            throw ProtocolError(.failed, "cannot store region '\(region.identifier)': \(error)")
        }
        if location.entries[identifier] == nil { location.entries[identifier] = LocationBook.Entry() }
        appLogger(identifier).info(
            "monitoring region '\(region.identifier)' (\(region.center.latitude), \(region.center.longitude)) r=\(region.radius) m"
        )
        return Done(detail: "monitoring \(region.identifier)")
    }

    /// `REGION_STOP` from an app.
    func stopMonitoring(_ identifier: String, region: String) -> Done {
        let removed = location.monitor.remove(region, owner: identifier)
        try? store.removeRegion(region, owner: identifier)
        return Done(detail: removed ? "stopped monitoring \(region)" : "\(region) was not monitored")
    }

    /// `REGION_STATE` from an app: the last fix, through the monitor's hysteresis; inside the
    /// boundary's margin, the last confirmed state.
    func regionState(_ identifier: String, region: String) throws(ProtocolError) -> RegionStateReply {
        guard let confirmed = location.monitor.state(of: region, owner: identifier),
            let monitored = location.monitor.regions(owner: identifier).first(where: { $0.identifier == region })
        else {
            throw ProtocolError(.failed, "\(identifier) does not monitor a region '\(region)'")
        }
        let seen = location.lastFix.map { location.monitor.classify(monitored, at: $0) } ?? .unknown
        return RegionStateReply(identifier: region, state: seen == .unknown ? confirmed : seen)
    }

    /// `REGIONS`: an app's regions and their states.
    func monitoredRegions(_ identifier: String) throws(ProtocolError) -> RegionList {
        _ = try app(identifier)
        return RegionList(
            regions: location.monitor.regions(owner: identifier).map { region in
                RegionList.Entry(
                    region: region, state: location.monitor.state(of: region.identifier, owner: identifier) ?? .unknown)
            }
        )
    }

    // MARK: Fixes

    /// gpsd came or went: apps listening hear `didFail` or recover.
    func locationServiceChanged(available: Bool, detail: String?) {
        guard location.available != available else { return }
        location.available = available
        location.unavailableDetail = available ? nil : detail
        for (identifier, entry) in location.entries where entry.ready {
            notify(identifier, .locationStatus(status(for: identifier)))
        }
    }

    private func status(for identifier: String) -> LocationServiceStatus {
        LocationServiceStatus(
            available: location.available, detail: location.unavailableDetail,
            authorization: location.authorization(identifier))
    }

    /// One de-duplicated fix from gpsd: through every app's filters and the region monitor,
    /// into the queues, then delivered, or the app woken or relaunched.
    func locationFix(_ fix: Location) {
        location.lastFix = fix
        var queued: [StateStore.QueuedEvent] = []
        var decisions: [String: LocationRouting.Decision] = [:]
        func route(_ source: LocationRouting.Source, _ event: StateStore.QueuedEvent, deferralDue: Bool = false) {
            guard let manifest = registry.catalog.loaded[event.owner]?.manifest,
                let entry = location.entries[event.owner]
            else { return }
            let decision = LocationRouting.decide(
                source,
                manifest: manifest,
                authorization: location.authorization(event.owner),
                subscription: entry.subscription,
                state: apps[event.owner]?.lifecycle.state ?? .notRunning,
                deferralDue: deferralDue
            )
            if case .drop = decision { return }
            queued.append(event)
            decisions[event.owner] = Self.stronger(decisions[event.owner], decision)
        }

        let transitions = location.monitor.offer(fix)
        if !transitions.isEmpty {
            do {
                try store.saveRegionStates(transitions.map { ($0.owner, $0.region.identifier, $0.to) })
            } catch {
                logger.error("cannot store region states: \(error)")
            }
        }
        for transition in transitions {
            appLogger(transition.owner).info(
                "region '\(transition.region.identifier)': \(transition.from.rawValue) -> \(transition.to.rawValue)")
            guard let notification = transition.notification else { continue }
            if location.entries[transition.owner] == nil { location.entries[transition.owner] = LocationBook.Entry() }
            route(
                .region,
                StateStore.QueuedEvent(
                    owner: transition.owner, kind: notification == .enter ? .enter : .exit,
                    location: transition.location, region: transition.region))
        }

        for identifier in location.entries.keys {
            guard var entry = location.entries[identifier] else { continue }
            var standardPassed = false
            var significantPassed = false
            if var filter = entry.standard {
                standardPassed = filter.offer(fix)
                entry.standard = filter
            }
            if var filter = entry.significant {
                significantPassed = filter.offer(fix)
                entry.significant = filter
            }
            var deferralDue = false
            if standardPassed, apps[identifier]?.lifecycle.state == .suspended,
                let deferral = entry.subscription.deferral
            {
                let first = entry.firstDeferred ?? fix
                entry.firstDeferred = first
                deferralDue = deferral.isDue(first: first, latest: fix)
            }
            location.entries[identifier] = entry
            let event = StateStore.QueuedEvent(owner: identifier, kind: .location, location: fix)
            // One event per fix. A significant change routes at least as far as a standard
            // update would (it also wakes and relaunches), so it decides when both passed.
            if significantPassed {
                appLogger(identifier).info("significant location change")
                route(.significantChange, event)
            } else if standardPassed {
                route(.standard, event, deferralDue: deferralDue)
            }
        }

        do {
            try store.enqueue(queued)
        } catch {
            logger.error("cannot queue location events: \(error)")
        }
        for (identifier, decision) in decisions {
            switch decision {
            case .deliver: flushLocations(identifier)
            case .queue, .drop: break
            case .queueAndWake: wakeForLocation(identifier)
            case .queueAndLaunch: launchForLocation(identifier)
            }
        }
    }

    private static func stronger(_ a: LocationRouting.Decision?, _ b: LocationRouting.Decision)
        -> LocationRouting.Decision
    {
        func rank(_ decision: LocationRouting.Decision?) -> Int {
            switch decision {
            case .queueAndLaunch: 4
            case .queueAndWake: 3
            case .deliver: 2
            case .queue: 1
            case .drop, nil: 0
            }
        }
        return rank(a) >= rank(b) ? a ?? b : b
    }

    private func wakeForLocation(_ identifier: String) {
        guard var app = apps[identifier], app.lifecycle.state == .suspended else {
            flushLocations(identifier)
            return
        }
        location.entries[identifier]?.firstDeferred = nil
        let actions = app.lifecycle.wake(now: now)
        apps[identifier] = app
        appLogger(identifier, pid: app.process?.pid).info("woken for location")
        perform(actions, for: identifier)
    }

    private func launchForLocation(_ identifier: String) {
        guard apps[identifier]?.process == nil else { return }
        do {
            try launch(identifier, reason: .location, foreground: false)
        } catch {
            appLogger(identifier).warning("not relaunched for location: \(error.message)")
        }
    }

    // MARK: Delivery

    /// Sends the app what waits in its queue beyond what it was already sent, when it can take it.
    func flushLocations(_ identifier: String) {
        guard var entry = location.entries[identifier], entry.ready, let app = apps[identifier], app.channel != nil,
            app.process != nil, app.lifecycle.state != .suspended
        else { return }
        let events: [LocationEvent]
        do {
            events = try store.queuedEvents(
                for: identifier, after: entry.sentThrough, limit: LocationBatch.maximumEvents)
        } catch {
            appLogger(identifier).error("cannot read queued location events: \(error)")
            return
        }
        guard let last = events.last else { return }
        notify(identifier, .locations(LocationBatch(events: events)))
        entry.sentThrough = last.seq
        entry.firstDeferred = nil
        location.entries[identifier] = entry
    }

    /// Takes or releases the `location` assertion as the grant and subscription now say.
    func updateLocationAssertion(_ identifier: String) {
        guard var app = apps[identifier], app.process != nil else { return }
        let held = LocationRouting.holdsAssertion(
            manifest: app.bundle.manifest,
            authorization: location.authorization(identifier),
            subscription: location.entries[identifier]?.subscription ?? LocationSubscription()
        )
        let actions = app.lifecycle.setAssertion("location", held: held, now: now)
        apps[identifier] = app
        perform(actions, for: identifier)
    }

    /// A new process checked in or the old one is gone: nothing was sent to it yet.
    func resetLocationDelivery(_ identifier: String) {
        guard location.entries[identifier] != nil else { return }
        location.entries[identifier]?.ready = false
        location.entries[identifier]?.sentThrough = 0
        location.entries[identifier]?.firstDeferred = nil
    }
}
