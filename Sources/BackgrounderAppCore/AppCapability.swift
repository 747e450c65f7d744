package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// A change in an app's life that the core tells every capability of, after carrying it out.
package enum LifecycleChange: Sendable, Hashable {
    /// A process was started for the app.
    case launched(LaunchReason)
    /// The process checked in on the connection it was handed: it can hear notices now.
    case checkedIn
    /// The app moved from one state to another: to the foreground or background, suspended,
    /// or woken (from `.suspended` to a running state).
    case moved(from: ApplicationState, to: ApplicationState)
    /// Event windows closed without the app completing them: they ran out, or the app came
    /// to the front or is being ended.
    case windowsClosed([EventWindowID])
    /// The app took or released an assertion (`audio`, `location`) without changing state.
    case assertionsChanged
    /// The process is gone, however it ended.
    case exited
    /// A person force-quit the app (`bgctl quit`), running or not: what it handed the system
    /// (pending transfers) is cancelled, as on iOS.
    case forceQuit
}

/// Something the system does for apps (location, audio; later scheduling, transfers,
/// notifications), plugged into the ``AppManager``.
///
/// A capability lives on the app manager's actor: every method is called from it, with the
/// manager as an `isolated` parameter, so a capability's state and the life cycle never
/// disagree and a capability acts on an app synchronously. It hears life-cycle changes
/// through ``app(_:changed:in:)``, and asks for what only the core may do through the
/// manager: ``AppManager/setAssertion(_:held:for:)``, ``AppManager/wakeIfSuspended(_:because:)``,
/// ``AppManager/launchInBackground(_:reason:)``, ``AppManager/notify(_:_:)``. The core never
/// names a capability; requests reach one through ``AppManager/with(_:_:)``.
///
/// Adding a capability is a folder with its class and its request handlers, and one line in
/// `Daemon.run` that hands an instance to the manager.
@AppCoreActor
package protocol AppCapability: AnyObject, Sendable {
    /// The authorization services a person grants for this capability with `bgctl authorize`
    /// (`location`, `microphone`); empty when it has none.
    var authorizationServices: [AuthorizationService] { get }

    /// Told of a change in an app's life, after the core carried it out.
    func app(_ identifier: BundleID, changed change: LifecycleChange, in apps: any AppCore)

    /// Told that the app's identity changed while it was not running: kept aside because
    /// another bundle claimed its identifier after its own was removed, or exchanged back by
    /// `bgctl adopt-bundle`. The store already holds the identity now in force (nothing, or
    /// the adopted grants): drop everything held in memory for the app and read its grants
    /// again, so nothing of one identity reaches the other.
    func identityChanged(_ identifier: BundleID, in apps: any AppCore)

    /// The daemon is about to serve: work stored by an earlier run resumes (apps recorded
    /// by that run were adopted already).
    func start(in apps: any AppCore)

    /// The daemon stopped serving: work in flight is cut, to resume next run.
    func stop(in apps: any AppCore) async

    /// The deadline the capability set (``AppCore/setDeadline(_:for:)``) has come.
    func deadlineReached(in apps: any AppCore)

    /// Told that the device became idle (the screen locked) or came into use (unlocked, an
    /// app opened).
    func deviceIdleChanged(idle: Bool, in apps: any AppCore)

    /// Told that the device's conditions changed: external power or the network, as the
    /// condition monitor saw them (the core keeps the power for ``AppCore/externalPower``).
    func conditionsChanged(externalPower: Bool, network: Bool, in apps: any AppCore)

    /// `bgctl authorize ID SERVICE LEVEL`, for one of ``authorizationServices``.
    func authorize(_ request: Authorize, in apps: any AppCore) throws(ProtocolError) -> Done

    /// Adds what this capability knows of each app to its `bgctl ps` row (all rows at once,
    /// so a capability reads its own state once per listing).
    func describe(_ list: inout [AppInfo], in apps: any AppCore)

    /// How it describes itself in `bgctl status`: its name and what it holds now (the core
    /// adds its next wake, from the deadline it set). Every capability says it (no default).
    func status(in apps: any AppCore) -> CapabilityStatus
}

extension AppCapability {
    package var authorizationServices: [AuthorizationService] { [] }

    package func authorize(_ request: Authorize, in apps: any AppCore) throws(ProtocolError) -> Done {
        throw ProtocolError(.badRequest, "\(request.service) is not granted through this capability")
    }

    package func describe(_ list: inout [AppInfo], in apps: any AppCore) {}

    package func deviceIdleChanged(idle: Bool, in apps: any AppCore) {}

    package func start(in apps: any AppCore) {}

    package func stop(in apps: any AppCore) async {}

    package func deadlineReached(in apps: any AppCore) {}

    package func conditionsChanged(externalPower: Bool, network: Bool, in apps: any AppCore) {}
}
