package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// Regions of notification requests (`UNLocationNotificationTrigger`), kept by the region
/// monitor beside apps' own regions under an owner of their own (``RegionOwner/notification(_:)``):
/// a crossing posts the notification and never reaches the app, so it is neither woken nor
/// launched for it.
extension LocationCapability: NotificationRegionWatching {
    /// Monitors a notification request's region (its identifier is the request's). Needs at
    /// least a when-in-use grant, as iOS does for location triggers, and counts against the
    /// policy's region limit apart from the app's own regions.
    package func monitorForNotification(
        _ bundle: BundleID, request: String, _ region: CircularRegion, in apps: any AppCore
    ) throws(ProtocolError) {
        let manifest = try apps.bundle(of: bundle).manifest
        guard book.authorization(bundle).allowsLocation else {
            throw ProtocolError(
                .notAuthorized,
                "trigger.region: a location trigger needs location; a person grants it with "
                    + "`bgctl authorize \(bundle) location when-in-use`")
        }
        let owner = RegionOwner.notification(bundle)
        var watched = region
        watched.identifier = request
        let limit = apps.policy.maximumMonitoredRegions(for: manifest)
        let replacing = book.monitor.state(of: request, owner: owner) != nil
        guard replacing || book.monitor.count(owner: owner) < limit else {
            throw ProtocolError(
                .limitReached, "trigger.region: \(bundle) already has \(limit) location triggers, the policy's limit")
        }
        do {
            try book.monitor.add(watched, owner: owner)
            try store.saveRegion(watched, owner: owner, state: .unknown)
        } catch let error as RegionError {
            throw ProtocolError(.badRequest, "trigger.region: \(error.description)")
        } catch {
            throw ProtocolError(.failed, "cannot store the region of notification '\(request)': \(error)")
        }
    }

    /// Stops monitoring notification requests' regions.
    package func stopMonitoringForNotifications(_ bundle: BundleID, requests: [String]) {
        let owner = RegionOwner.notification(bundle)
        for request in requests where book.monitor.remove(request, owner: owner) {
            try? store.removeRegion(request, owner: owner)
        }
    }

    /// Hands crossings of notification regions to the notification capability.
    package func postNotifications(for transitions: [RegionTransition], in apps: any AppCore) {
        for transition in transitions {
            guard case .notification(let bundle) = transition.owner, transition.notification != nil else { continue }
            notificationTriggers?.regionCrossed(bundle, request: transition.region.identifier, in: apps)
        }
    }
}
