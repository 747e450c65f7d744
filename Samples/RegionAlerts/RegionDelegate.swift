import BackgroundKit
import Foundation
import SampleSupport

/// The app under the daemon: monitors the regions in `regions.geojson` and records an alert
/// each time the device enters or leaves one.
///
/// It needs no background mode: as on iOS, a region event launches the app if it is not
/// running, and wakes it if it is suspended. The person is told by local notifications with
/// location triggers (RegionNotifications), which the daemon posts by itself on each crossing,
/// on the desktop or, without one, in the app's log; a person allows them with
/// `bgctl authorize ID notifications`.
@MainActor
final class RegionDelegate: ApplicationDelegate, LocationManagerDelegate {
    private let files = RegionFiles.forApp()
    private var manager: LocationManager?

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("launched (\(reason.rawValue))")
        let manager = LocationManager()
        manager.delegate = self
        manager.requestAlwaysAuthorization()
        self.manager = manager
        if manager.authorizationStatus != .always {
            say(
                "location authorized: \(manager.authorizationStatus.rawValue); regions need "
                    + "`bgctl authorize \(RegionFiles.bundleIdentifier) location always`")
        }
        sync(manager, quietWhenUnchanged: false)
    }

    func applicationDidBecomeActive(_ application: Application) {
        // `bgctl open` after the regions changed brings a running app to the foreground
        // rather than launching it, so this is where it learns of the change.
        if let manager { sync(manager, quietWhenUnchanged: true) }
    }

    /// Makes the daemon monitor exactly the file's regions. A file that cannot be read changes
    /// nothing: one typo must not silently stop every alert.
    private func sync(_ manager: LocationManager, quietWhenUnchanged: Bool) {
        let file: RegionFile
        do {
            file = try files.readRegions()
        } catch {
            say("regions not updated: \(error)")
            return
        }
        let sync = RegionSync(wanted: file.regions, monitored: manager.monitoredRegions)
        for region in sync.stop { manager.stopMonitoring(for: region) }
        for region in sync.start { manager.startMonitoring(for: region) }
        syncNotifications(file.regions)
        if !sync.isEmpty || !quietWhenUnchanged {
            say(
                "monitoring \(file.regions.count) regions from \(files.regions) "
                    + "(\(sync.start.count) started, \(sync.stop.count) stopped, \(sync.unchanged) unchanged)")
        }
    }

    /// Makes the daemon post a notification on each region's entry and exit by itself
    /// (location triggers), so one arrives even before the app is relaunched for the log.
    private func syncNotifications(_ regions: [CircularRegion]) {
        Task {
            let center = UNUserNotificationCenter.current()
            guard (try? await center.requestAuthorization(options: [.alert])) == true else {
                say(
                    "alerts are not posted as notifications until "
                        + "`bgctl authorize \(RegionFiles.bundleIdentifier) notifications`")
                return
            }
            let pending = await center.pendingNotificationRequests().map {
                ($0.identifier, ($0.trigger as? UNLocationNotificationTrigger)?.region)
            }
            let changes = RegionNotifications.changes(
                wanted: RegionNotifications.plans(for: regions), pending: pending)
            if !changes.remove.isEmpty { center.removePendingNotificationRequests(withIdentifiers: changes.remove) }
            for plan in changes.add {
                let content = UNMutableNotificationContent()
                content.title = plan.title
                content.body = plan.body
                content.threadIdentifier = "regions"
                let trigger = UNLocationNotificationTrigger(region: plan.region, repeats: true)
                do {
                    try await center.add(
                        UNNotificationRequest(identifier: plan.identifier, content: content, trigger: trigger))
                } catch {
                    say("no notification for '\(plan.identifier)': \(error)")
                }
            }
        }
    }

    func locationManager(_ manager: LocationManager, didEnterRegion region: CircularRegion) {
        alert(.enter, region, manager)
    }

    func locationManager(_ manager: LocationManager, didExitRegion region: CircularRegion) {
        alert(.exit, region, manager)
    }

    func locationManager(
        _ manager: LocationManager, monitoringDidFailFor region: CircularRegion?, withError error: LocationError
    ) {
        say("monitoring \(region.map { "region \($0.identifier)" } ?? "a region") failed: \(error)")
    }

    func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) {
        say("location: \(error)")
    }

    func locationManagerDidChangeAuthorization(_ manager: LocationManager) {
        say("location authorized: \(manager.authorizationStatus.rawValue)")
        // Monitoring was refused until a person granted location: hand the regions over now
        // rather than wait for the next `bgctl open`.
        if [.always, .whenInUse].contains(manager.authorizationStatus) { sync(manager, quietWhenUnchanged: true) }
    }

    /// Records an alert. The event carries no fix, so its time is that of the
    /// last fix this app heard, or else now.
    private func alert(_ transition: AlertLog.Transition, _ region: CircularRegion, _ manager: LocationManager) {
        let time = manager.location?.timestamp ?? Date().timeIntervalSince1970
        let line = AlertLog.line(time: time, transition, region.identifier)
        do {
            try AlertLog(path: files.alerts).append(line)
        } catch {
            say("alert not logged: \(error)")
        }
        say(line)
    }
}
