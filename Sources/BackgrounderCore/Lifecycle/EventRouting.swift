/// What the daemon does when an event an app may have registered for arrives: the
/// relaunch rules of iOS, in one pure function.
public enum EventRouting {
    /// The daemon's answer to one event for one app.
    public enum Decision: Sendable, Hashable {
        /// The app is not running: launch it into the background with this reason.
        case launchInBackground
        /// The app is suspended: thaw it for a new stretch of background time.
        case wake
        /// The app is running: tell it.
        case deliver
        /// The event does not reach the app, and why.
        case refuse(String)
    }

    /// The background mode an event needs, or `nil` when it needs none.
    public static func requiredMode(for event: LaunchReason) -> BackgroundMode? {
        switch event {
        case .push: .remoteNotification
        case .fetch, .appRefresh: .fetch
        case .processing: .processing
        case .location: .location
        case .audio: .audio
        case .region, .download, .user, .relaunch: nil
        }
    }

    /// Decides what an event does to an app.
    /// - Parameters:
    ///   - event: What happened.
    ///   - manifest: The app's manifest.
    ///   - state: Its current state.
    ///   - forceQuit: Whether a person force-quit it.
    /// - Returns: The decision.
    public static func decide(
        _ event: LaunchReason,
        for manifest: AppManifest,
        state: ApplicationState,
        forceQuit: Bool
    ) -> Decision {
        if let mode = requiredMode(for: event), !manifest.backgroundModes.contains(mode) {
            return .refuse("\(manifest.bundleIdentifier) does not declare the \(mode.rawValue) background mode")
        }
        // iOS relaunches a force-quit app for location events only (significant change,
        // regions); everything else waits until the person opens it again.
        if forceQuit && state == .notRunning && event != .location && event != .region {
            return .refuse(
                "\(manifest.bundleIdentifier) was force-quit; it is not relaunched for \(event.rawValue) events")
        }
        switch state {
        case .notRunning: return .launchInBackground
        case .suspended: return .wake
        case .inactive, .active, .background: return .deliver
        }
    }
}
