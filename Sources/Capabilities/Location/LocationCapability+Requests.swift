package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Logging

/// What apps and people ask of the location capability: grants, subscriptions, delivery
/// acknowledgements and regions.
extension LocationCapability {
    // MARK: Grants

    /// `bgctl authorize ID location LEVEL`.
    package func authorize(_ request: Authorize, in apps: any AppCore) throws(ProtocolError) -> Done {
        let identifier = request.bundle
        let manifest = try apps.bundle(of: identifier).manifest
        guard case .location(let level) = request.grant else {
            throw ProtocolError(.badRequest, "\(request.service.rawValue) is not granted by the location capability")
        }
        if let missing = manifest.missingLocationUsageDescription(for: level) {
            throw ProtocolError(.notAuthorized, "cannot grant: \(missing)")
        }
        do {
            try store.setAuthorization(identifier, request.grant)
        } catch {
            throw ProtocolError(.failed, "cannot store the grant: \(error)")
        }
        book.authorizations[identifier] = level
        apps.appLogger(identifier).notice("location authorization is now \(level.rawValue)")
        apps.notify(identifier, .authorization(AuthorizationStatus(location: level)))
        updateAssertion(identifier, in: apps)
        flush(identifier, in: apps)
        return Done(detail: "\(identifier): location \(request.grant.level)")
    }

    /// `LOCATION_AUTHORIZATION` from an app: checks the usage description and answers with the grant.
    package func requestAuthorization(_ identifier: BundleID, level: LocationAuthorization?, in apps: any AppCore)
        throws(ProtocolError) -> AuthorizationStatus
    {
        let manifest = try apps.bundle(of: identifier).manifest
        if let level, let missing = manifest.missingLocationUsageDescription(for: level) {
            throw ProtocolError(.notAuthorized, missing)
        }
        let current = book.authorization(identifier)
        // Asked when nothing is decided, and again for always over when-in-use (iOS's upgrade).
        if let level, current == .notDetermined || (level == .always && current == .whenInUse) {
            let usage =
                level == .always
                ? manifest.usageDescriptions.locationAlwaysAndWhenInUse : manifest.usageDescriptions.locationWhenInUse
            apps.askPerson(identifier, for: .location, asks: level == .always ? "always" : "when-in-use", usage: usage)
        }
        return AuthorizationStatus(location: current)
    }

    // MARK: Updates

    /// `LOCATION_UPDATES` from an app: what it wants from now on.
    package func setSubscription(_ identifier: BundleID, _ requested: LocationSubscription, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        let manifest = try apps.bundle(of: identifier).manifest
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
        guard subscription.isEmpty || book.authorization(identifier).allowsLocation else {
            throw ProtocolError(
                .notAuthorized,
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
        book.listeners[identifier, default: LocationListener()].apply(subscription)
        updateAssertion(identifier, in: apps)
        if !book.available {
            apps.notify(identifier, .locationStatus(status(for: identifier)))
        }
        let what =
            [
                subscription.standard.map { _ in "standard updates" },
                subscription.significantChanges ? "significant changes" : nil,
            ]
            .compactMap { $0 }
        apps.appLogger(identifier).info("location: \(what.isEmpty ? "off" : what.joined(separator: " and "))")
        return Done(
            detail: ([what.isEmpty ? "location off" : what.joined(separator: ", ")] + notes).joined(separator: "; "))
    }

    /// `LOCATION_READY` from an app: its location manager has a delegate, so anything queued can go.
    package func ready(_ identifier: BundleID, in apps: any AppCore) -> Done {
        // Whatever was sent on an earlier connection and not acknowledged goes again.
        book.deliveries[identifier, default: LocationBook.Delivery()].ready = true
        book.deliveries[identifier]?.sentThrough = 0
        flush(identifier, in: apps)
        return Done(detail: "ready")
    }

    /// `LOCATION_ACK` from an app: forgets what it handled, and only what it was sent.
    package func acknowledge(_ identifier: BundleID, through seq: Int64, in apps: any AppCore) throws(ProtocolError)
        -> Done
    {
        let delivered = book.deliveries[identifier]?.sentThrough ?? 0
        let forgotten: Int
        do {
            forgotten = try store.acknowledge(identifier, through: seq, deliveredThrough: delivered)
        } catch let refusal as LocationAckRefusal {
            apps.appLogger(identifier).warning("\(refusal)")
            throw ProtocolError(.badRequest, refusal.description)
        } catch {
            // The events stay queued and come again; the app de-duplicates them.
            apps.appLogger(identifier).error("cannot forget acknowledged location events: \(error)")
            flush(identifier, in: apps)
            throw ProtocolError(.failed, "cannot forget the acknowledged events (they will be sent again): \(error)")
        }
        flush(identifier, in: apps)
        return Done(detail: "acknowledged through \(seq) (\(forgotten) forgotten)")
    }

    // MARK: Regions

    /// `REGION_START` from an app.
    package func startMonitoring(_ identifier: BundleID, _ region: CircularRegion, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        let manifest = try apps.bundle(of: identifier).manifest
        guard book.authorization(identifier).allowsLocation else {
            throw ProtocolError(
                .notAuthorized,
                "region monitoring is not authorized for \(identifier); a person grants it with "
                    + "`bgctl authorize \(identifier) location always`"
            )
        }
        let limit = apps.policy.maximumMonitoredRegions(for: manifest)
        let replacing = book.monitor.state(of: region.identifier, owner: .app(identifier)) != nil
        guard replacing || book.monitor.count(owner: .app(identifier)) < limit else {
            throw ProtocolError(
                .limitReached,
                "region '\(region.identifier)': \(identifier) already monitors \(limit) regions, the policy's limit")
        }
        do {
            try book.monitor.add(region, owner: .app(identifier))
        } catch {
            throw ProtocolError(.badRequest, error.description)
        }
        do {
            try store.saveRegion(region, owner: .app(identifier), state: .unknown)
        } catch {
            throw ProtocolError(.failed, "cannot store region '\(region.identifier)': \(error)")
        }
        if book.deliveries[identifier] == nil { book.deliveries[identifier] = LocationBook.Delivery() }
        apps.appLogger(identifier).info(
            "monitoring region '\(region.identifier)' (\(region.center.latitude), \(region.center.longitude)) r=\(region.radius) m"
        )
        return Done(detail: "monitoring \(region.identifier)")
    }

    /// `REGION_STOP` from an app.
    package func stopMonitoring(_ identifier: BundleID, region: String) -> Done {
        let removed = book.monitor.remove(region, owner: .app(identifier))
        try? store.removeRegion(region, owner: .app(identifier))
        return Done(detail: removed ? "stopped monitoring \(region)" : "\(region) was not monitored")
    }

    /// `REGION_STATE` from an app: the last fix, through the monitor's hysteresis; inside the
    /// boundary's margin, the last confirmed state.
    package func regionState(_ identifier: BundleID, region: String) throws(ProtocolError) -> RegionStateReply {
        guard let confirmed = book.monitor.state(of: region, owner: .app(identifier)),
            let monitored = book.monitor.regions(owner: .app(identifier)).first(where: { $0.identifier == region })
        else {
            throw ProtocolError(.notFound, "\(identifier) does not monitor a region '\(region)'")
        }
        let seen = book.lastFix.map { book.monitor.classify(monitored, at: $0) } ?? .unknown
        return RegionStateReply(identifier: region, state: seen == .unknown ? confirmed : seen)
    }

    /// `REGIONS`: an app's regions and their states.
    package func monitoredRegions(_ identifier: BundleID, in apps: any AppCore) throws(ProtocolError) -> RegionList {
        _ = try apps.bundle(of: identifier)
        return RegionList(
            regions: book.monitor.regions(owner: .app(identifier)).map { region in
                RegionList.Entry(
                    region: region,
                    state: book.monitor.state(of: region.identifier, owner: .app(identifier)) ?? .unknown)
            }
        )
    }
}
