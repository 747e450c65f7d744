package import BackgrounderCore
package import BackgrounderProtocol

/// What the notification capability needs of location: watching the regions of location
/// triggers (`UNLocationNotificationTrigger`) beside apps' own. The location capability
/// conforms; the composition hands it to notifications, which never imports location.
@AppCoreActor
package protocol NotificationRegionWatching: AnyObject {
    /// Monitors a location trigger's region (its identifier is the request's).
    /// - Throws: ``ProtocolError`` when the app may not use location or has too many.
    func monitorForNotification(
        _ app: BundleID, request: String, _ region: CircularRegion, in apps: any AppCore
    ) throws(ProtocolError)

    /// Stops monitoring the regions of these requests.
    func stopMonitoringForNotifications(_ app: BundleID, requests: [String])
}

/// What location tells the notification capability: the device crossed a location trigger's
/// region. The notification capability conforms; the composition hands it to location.
@AppCoreActor
package protocol NotificationRegionCrossing: AnyObject {
    /// The device entered or left the region of `app`'s request `request`.
    func regionCrossed(_ app: BundleID, request: String, in apps: any AppCore)
}
