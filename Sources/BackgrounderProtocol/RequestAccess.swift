/// Who may send a request: the command authorization matrix, in one place.
///
/// A *person* is a process outside every app's container, of the daemon's uid or root,
/// speaking on the public control socket (`bgctl`, a sample's command line run by someone).
/// An *app* speaks only on the connection the daemon handed it at launch, and only for
/// itself. docs/PROTOCOL.md ("Who may send what") shows the same table.
public enum RequestAccess: String, Sendable, Hashable, CaseIterable {
    /// Anyone who can reach the daemon: only the greeting.
    case anyone
    /// Only a person: user actions, simulations, grants, and questions about any app.
    case person
    /// Only an app, about itself, on its own connection.
    case app
}

extension ClientMessage.Body {
    /// Who may send this request.
    public var access: RequestAccess {
        switch self {
        case .hello:
            .anyone
        // What a person does with the device, and what only a person may see or decide.
        case .status, .bundles, .reload, .open, .home, .lock, .unlock, .quit, .ps, .capabilities, .wake,
            .memoryPressure,
            .authorize, .permissions, .remoteCommand, .audio, .audioRoute, .push, .tasks, .simulateTask, .expireTask,
            .transfers,
            .dataDirectory, .notifications, .activateNotification, .importFiles, .adoptBundle, .share, .unshare,
            .shares, .simulateLocation, .followNotifications, .prompts, .answer:
            .person
        // `REGIONS` naming an app is a person asking about it; without one, an app about itself.
        case .regions(let query):
            query.bundle == nil ? .app : .person
        case .checkIn, .beginTask, .endTask, .requestAuthorization, .locationUpdates, .locationReady, .locationAck,
            .startMonitoring, .stopMonitoring, .requestState, .audioSession, .openAudioStream, .audioStreamControl,
            .nowPlaying, .remoteCommandStatus, .setFetchInterval, .complete, .registerTask, .submitTask, .cancelTasks,
            .pendingTasks,
            .registerPush, .unregisterPush, .createTransfer, .cancelTransfer, .transferSession, .acknowledgeTransfer,
            .requestNotificationAuthorization, .addNotification, .listNotifications, .removeNotifications,
            .notificationPresentation, .requestMediaLibraryAuthorization:
            .app
        }
    }
}
