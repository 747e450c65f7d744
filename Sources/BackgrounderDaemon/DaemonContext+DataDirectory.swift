import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation

extension DaemonContext {
    /// `DATA_DIRECTORY`: where an app's data directory is, for a person's tools (a sample's
    /// command line reading what the app wrote). Only a person may ask (``RequestAccess``), and
    /// may ask about any app; an app has its own as `BACKGROUNDER_DATA_DIR`.
    ///
    /// An app that is loaded is answered even before its directory exists (a command line may
    /// prepare it before the first launch); one no longer loaded is answered while its data is
    /// still there. Anything else is `notFound`, so a mistyped identifier or the wrong daemon
    /// is said rather than answered with a path nobody uses.
    /// - Parameter bundle: The app's bundle identifier.
    /// - Returns: `DATA_DIRECTORY`, or the `ERROR` naming the field and why.
    func dataDirectory(of bundle: BundleID) -> DaemonMessage.Body {
        // Checked before it becomes part of a path: `..` or a slash must not name another directory.
        if let problem = BundleIdentifierRules.problem(with: bundle.rawValue) {
            return .error(ProtocolError(.badRequest, "DATA_DIRECTORY: bundle is not a bundle identifier: \(problem)"))
        }
        let path = apps.supervisor.dataPath(for: bundle)
        guard registry.catalog.loaded[bundle] != nil || FileManager.default.fileExists(atPath: path) else {
            return .error(
                ProtocolError(
                    .notFound,
                    "DATA_DIRECTORY: no app '\(bundle)' in the daemon with state directory \(configuration.stateDirectory): no such bundle is loaded and it has no data directory"
                ))
        }
        return .dataDirectory(AppDataDirectory(bundle: bundle, path: path))
    }
}
