import BackgroundKit
import Foundation
import SampleSupport

// RegionAlerts: tells you when you arrive at or leave places you chose, as a geofencing app on
// iOS does, without running in between.
//
// Launched by backgrounderd (no arguments) it is the app: RegionDelegate hands the regions in
// regions.geojson (RegionFile) to the daemon, which relaunches or wakes it for each entry and
// exit. Run by a person with a command (import, add, remove, list, log) it edits or prints its
// files; see RegionCommandLine.usage.
//
// Both files are in the app's data directory, STATE/data/org.backgrounder.samples.regionalerts,
// where STATE is the daemon's --state-dir (by default $XDG_STATE_HOME/backgrounder, else
// ~/.local/state/backgrounder); the daemon passes it to the app as BACKGROUNDER_DATA_DIR, and
// tells the command line when asked (DATA_DIRECTORY).
//
// The alert log, alerts.log, has one line per alert, oldest first, each synced to disk before
// the alert is shown:
//
//     2024-06-10T07:13:20.000Z enter home
//     2024-06-10T18:02:41.512Z exit Büro Bern
//
// First the time, ISO 8601 in UTC with milliseconds: that of the last fix the app heard, or the
// clock's when it heard none (a region event carries no fix). Then `enter` or `exit`. Then the
// region's identifier, to the end of the line (it may hold spaces, never a line break).
// `RegionAlerts log` prints it.

SampleLaunch.commandOrApp(program: "RegionAlerts", identifier: RegionFiles.bundleIdentifier) { RegionCommand.run($0) }
MainActor.assumeIsolated {
    Application.main(delegate: RegionDelegate())
}
