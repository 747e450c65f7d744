import BackgroundKit
import Foundation
import SampleSupport

/// The app under the daemon: records every fix into the current track.
///
/// Deferred updates let the daemon suspend it between batches (every 250 m or 2 minutes), so a
/// day's hike costs a few hundred short wake-ups rather than a process running all day.
/// Significant-change monitoring makes the daemon relaunch it after it was killed, and the
/// fixes that queued meanwhile arrive in the first batch.
@MainActor
final class HikeDelegate: ApplicationDelegate, LocationManagerDelegate {
    /// Metres between batches while suspended.
    static let deferredDistance = 250.0
    /// Seconds between batches while suspended, when the hiker stands still.
    static let deferredTimeout = 120.0

    private var recorder: TrackRecorder?
    private var manager: LocationManager?

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("launched (\(reason.rawValue))")
        let files = TrackFiles.forApp()
        do {
            let recorder = try TrackRecorder(files: files)
            say(recorder.resumeLine)
            self.recorder = recorder
        } catch {
            // Without the log no fix can be kept; exiting before a delegate is set leaves
            // every queued fix with the daemon for the next launch.
            complain("cannot open the track in \(files.directory): \(error)")
            exit(74)
        }
        let manager = LocationManager()
        manager.delegate = self
        manager.requestAlwaysAuthorization()
        manager.allowsBackgroundLocationUpdates = true
        manager.desiredAccuracy = LocationAccuracy.best
        manager.distanceFilter = LocationManager.distanceFilterNone
        // A hike: a rest of a few minutes pauses the track (the app may sleep, the receiver's
        // fixes are not kept), the first steps resume it.
        manager.activityType = .fitness
        manager.pausesLocationUpdatesAutomatically = true
        manager.startUpdatingLocation()
        manager.allowDeferredLocationUpdates(
            untilTraveled: HikeDelegate.deferredDistance, timeout: HikeDelegate.deferredTimeout)
        manager.startMonitoringSignificantLocationChanges()
        self.manager = manager
        reportAuthorization(manager.authorizationStatus)
    }

    func applicationWillTerminate(_ application: Application) {
        say("terminating; \(recorder?.fixes.count ?? 0) fixes recorded")
    }

    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {
        guard let recorder else { return }
        do {
            say(try recorder.record(locations).line)
        } catch {
            // The daemon forgets a batch only once this returns: exiting instead keeps it
            // queued there, to be delivered again when the disk has room.
            complain("cannot record \(locations.count) fixes: \(error); exiting so the daemon keeps them")
            exit(74)
        }
    }

    func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) {
        say("location: \(error)")
    }

    func locationManagerDidPauseLocationUpdates(_ manager: LocationManager) {
        say("paused: standing still")
    }

    func locationManagerDidResumeLocationUpdates(_ manager: LocationManager) {
        say("resumed: moving")
    }

    func locationManagerDidChangeAuthorization(_ manager: LocationManager) {
        reportAuthorization(manager.authorizationStatus)
    }

    private func reportAuthorization(_ status: LocationAuthorization) {
        if status == .always {
            say("location authorized: always")
        } else {
            say(
                "location authorized: \(status.rawValue); to record with the screen locked, run "
                    + "`bgctl authorize \(TrackFiles.bundleIdentifier) location always`")
        }
    }
}
