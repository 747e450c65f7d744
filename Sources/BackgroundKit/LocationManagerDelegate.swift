public import BackgrounderCore

/// What an app hears from its ``LocationManager``, as `CLLocationManagerDelegate`. Called on
/// the main actor; every method has an empty default.
@MainActor
public protocol LocationManagerDelegate: AnyObject {
    /// New fixes, oldest first. After a suspension or relaunch, everything that queued
    /// arrives here together.
    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location])
    /// The device entered a monitored region (confirmed after the dwell time).
    func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion)
    /// The device left a monitored region.
    func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion)
    /// The answer to ``LocationManager/requestState(for:)``.
    func locationManager(_ manager: LocationManager, didDetermineState state: RegionState, for region: CircularRegion)
    /// Location is unavailable (gpsd went away), a request was refused, or events were lost
    /// because the daemon could not store them (``LocationError/Code/eventsNotStored``).
    func locationManager(_ manager: LocationManager, didFailWithError error: LocationError)
    /// Monitoring a region failed (bad region, limit reached, not authorized).
    func locationManager(
        _ manager: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError)
    /// The authorization changed, or was first determined.
    func locationManagerDidChangeAuthorization(_ manager: LocationManager)
    /// Updates paused: the device stood still for the activity's time
    /// (``LocationManager/pausesLocationUpdatesAutomatically``). The app may be suspended now.
    func locationManagerDidPauseLocationUpdates(_ manager: LocationManager)
    /// Updates resumed: the device moved; the fix that says where follows.
    func locationManagerDidResumeLocationUpdates(_ manager: LocationManager)
}

extension LocationManagerDelegate {
    public func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {}
    public func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion) {}
    public func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion) {}
    public func locationManager(
        _ manager: LocationManager, didDetermineState state: RegionState, for region: CircularRegion
    ) {}
    public func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) {}
    public func locationManager(
        _ manager: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError
    ) {}
    public func locationManagerDidChangeAuthorization(_ manager: LocationManager) {}
    public func locationManagerDidPauseLocationUpdates(_ manager: LocationManager) {}
    public func locationManagerDidResumeLocationUpdates(_ manager: LocationManager) {}
}

/// Why location failed, as `CLError`.
public struct LocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// No fix can be had right now (gpsd is not connected); updates resume by themselves.
        case locationUnknown
        /// The person has not authorized location for this app.
        case denied
        /// A region could not be monitored: the limit of regions was reached, the region is
        /// not valid, or it is not monitored (`kCLErrorRegionMonitoringFailure`).
        case regionMonitoringFailure
        /// The person has not authorized location, which region monitoring needs
        /// (`kCLErrorRegionMonitoringDenied`).
        case regionMonitoringDenied
        /// The app is not running under backgrounderd or has not checked in, or the daemon
        /// refused the request for a reason Core Location has no code for (a bad value, its
        /// own failure); the message says which.
        case unavailable
        /// The daemon could not store some events for the app (its disk is full): they are
        /// lost, so the app's track has a gap; later events come as usual once it can.
        case eventsNotStored
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, for people.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
