package import BackgrounderCore
import BackgrounderProtocol
import BackgrounderSystem

/// Apps go with their bundle: a scan (inotify, `bgctl reload`, SIGHUP) that finds a running
/// app's bundle removed, refused, or replaced ends the app, as iOS ends an app that is deleted
/// or updated. It hears `willTerminate` and gets the termination grace, then is killed; a
/// suspended app is thawed for it. Nothing is left running that no loaded bundle speaks for.
extension AppManager {
    /// Ends the running apps whose bundle the new catalog no longer has as they launched it.
    package func bundlesChanged(_ catalog: BundleCatalog) {
        for identifier in apps.keys.sorted() {
            guard let app = apps[identifier], let process = app.process, app.lifecycle.terminating == nil else {
                continue
            }
            let reason: TerminationReason
            let why: String
            if let loaded = catalog.loaded[identifier] {
                let replaced =
                    loaded.path != app.bundle.path || loaded.manifest != app.bundle.manifest
                    || registry.fingerprint(ofBundleAt: loaded.path) != app.launchedFingerprint
                guard replaced else { continue }
                reason = .bundleReplaced
                why = "its bundle was replaced (\(loaded.path)); the next launch runs the new one"
            } else {
                reason = .bundleRemoved
                let refusal = catalog.refused.first { $0.path == app.bundle.path }
                why =
                    refusal.map { "its bundle no longer loads: \($0)" }
                    ?? "its bundle is gone (\(app.bundle.path))"
            }
            appLogger(identifier, pid: process.pid).notice("\(why): ending it")
            if foreground == identifier { foreground = nil }
            apply(identifier) { lifecycle, _ in lifecycle.terminate(reason) }
        }
    }
}
