/// Where an app is in its life cycle, as `UIApplication.State` plus the states iOS keeps
/// to itself.
public enum ApplicationState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not launched, or exited.
    case notRunning
    /// Running in the foreground but not receiving events (launching, or resigning active).
    case inactive
    /// In the foreground, receiving events.
    case active
    /// Running in the background, on borrowed time or with an assertion.
    case background
    /// In memory but frozen: it runs no code.
    case suspended
}

/// What the daemon tells an app about its life cycle, named as UIApplicationDelegate's methods.
public enum LifecycleEvent: String, Sendable, Hashable, Codable, CaseIterable {
    case didBecomeActive
    case willResignActive
    case didEnterBackground
    case willEnterForeground
    case willTerminate
}

/// Why an app was launched, as `UIApplication.LaunchOptionsKey` says.
public enum LaunchReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// A person opened it (`bgctl open`).
    case user
    /// A location update it asked for.
    case location
    /// A region it monitors was entered or left.
    case region
    /// A background fetch window.
    case fetch
    /// An app-refresh task it submitted (`BGAppRefreshTaskRequest`).
    case appRefresh
    /// A processing task it submitted (`BGProcessingTaskRequest`), its conditions met.
    case processing
    /// Audio it was playing or recording.
    case audio
    /// A push notification.
    case push
    /// A background download finished.
    case download
    /// Relaunched after it crashed or was terminated by the system.
    case relaunch
}
