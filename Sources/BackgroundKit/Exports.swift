public import BackgrounderCore

/// Why the app was launched (`UIApplication.LaunchOptionsKey`'s role).
public typealias LaunchReason = BackgrounderCore.LaunchReason
/// The app's life-cycle state (`UIApplication.State`'s role).
public typealias ApplicationState = BackgrounderCore.ApplicationState
