import BackgroundKit
import Foundation
import SampleSupport

/// The app under the daemon: monitors the regions in `regions.geojson` and records an alert
/// each time the device enters or leaves one.
///
/// It needs no background mode: as on iOS, a region event launches the app if it is not
/// running, and wakes it if it is suspended. Each alert is also posted as a local notification
/// (`UNUserNotificationCenter`), which the daemon shows on the desktop, or in the app's log
/// without one; a person allows them with `bgctl authorize ID notifications`.
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
        Task {
            let granted =
                (try? await UNUserNotificationCenter.current().requestAuthorization(options: [.alert])) ?? false
            if !granted {
                say(
                    "alerts are not posted as notifications until "
                        + "`bgctl authorize \(RegionFiles.bundleIdentifier) notifications`")
            }
        }
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
        if !sync.isEmpty || !quietWhenUnchanged {
            say(
                "monitoring \(file.regions.count) regions from \(files.regions) "
                    + "(\(sync.start.count) started, \(sync.stop.count) stopped, \(sync.unchanged) unchanged)")
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
    }

    /// Records an alert and shows it. The event carries no fix, so its time is that of the
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
        post(transition == .enter ? "Arrived at \(region.identifier)" : "Left \(region.identifier)", body: line)
    }

    /// Posts an alert at once; a newer alert for the same region replaces an older one.
    private func post(_ title: String, body: String) {
        let content = UNMutableNotificationContent()
        content.title = title
        content.body = body
        content.threadIdentifier = "regions"
        let request = UNNotificationRequest(identifier: title, content: content, trigger: nil)
        Task {
            do {
                try await UNUserNotificationCenter.current().add(request)
            } catch {
                say("alert not posted as a notification: \(error)")
            }
        }
    }
}
