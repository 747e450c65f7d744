package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
package import Foundation
package import Logging

/// What a capability may ask of the app core, and nothing else: the contract between the core
/// (the app table and the life cycle, which only the core changes) and everything the system
/// does for apps. Capabilities receive the core as this protocol, in a target of their own
/// that cannot name the core's type, so the compiler holds the boundary.
///
/// Reads give what speaks for an app now; asks change an app's life only through the core
/// (``setAssertion(_:held:for:)``, ``wakeIfSuspended(_:because:)``,
/// ``launchInBackground(_:reason:)``, the event windows), which carries them out and then
/// tells every capability (``AppCapability/app(_:changed:in:)``).
@AppCoreActor
package protocol AppCore: AnyObject, Sendable {
    // MARK: Reading

    /// The daemon's logger.
    var logger: Logger { get }
    /// The policy in force.
    var policy: any BackgroundPolicy { get }
    /// The core's one clock (``CoreClock``).
    var clock: any CoreClock { get }
    /// Time since the core started, on ``clock``.
    var now: Duration { get }
    /// The app in front, if any.
    var foreground: BundleID? { get }
    /// Since when the device has been idle (locked, no app in front); `nil` while in use.
    var idleSince: ContinuousClock.Instant? { get }
    /// Whether the device is on external power, as the condition monitor last saw it.
    var externalPower: Bool { get }
    /// The directories that hold every app's own (data and temporary), for opening a path a
    /// person names without following a link an app planted there.
    var appDirectories: [String] { get }

    /// A logger that names the app (and its process).
    func appLogger(_ identifier: BundleID, pid: Int32?) -> Logger
    /// The manifest that speaks for the app now: the one it was launched with while it runs,
    /// the registry's otherwise; `nil` when it is neither running nor loaded.
    func manifest(of identifier: BundleID) -> AppManifest?
    /// The bundle that speaks for the app now (as ``manifest(of:)``).
    /// - Throws: ``ProtocolError`` `notFound` for no loaded app, `badRequest` for a policy.
    func bundle(of identifier: BundleID) throws(ProtocolError) -> ValidatedBundle
    /// The app's state; `.notRunning` for one the core has no record of.
    func state(of identifier: BundleID) -> ApplicationState
    /// Whether the app is in front, or being launched there.
    func isInFront(_ identifier: BundleID) -> Bool
    /// Whether the app has a process.
    func isRunning(_ identifier: BundleID) -> Bool
    /// Whether the app's process checked in and its connection is open: notices reach it.
    func canHear(_ identifier: BundleID) -> Bool
    /// Whether a person force-quit the app (and has not opened it since).
    func isForceQuit(_ identifier: BundleID) -> Bool
    /// The assertions the app holds (`audio`, `location`, a background task's).
    func assertions(of identifier: BundleID) -> Set<BackgroundAssertion>
    /// The app's process, when it has one.
    func process(of identifier: BundleID) -> Supervisor.Launched?
    /// The app's own directories (data, then temporary): the only places a transfer may use.
    func containerPaths(of identifier: BundleID) -> [String]
    /// The policy's scheduling numbers for an app on the power the device is on now.
    func schedulingPolicy(for manifest: AppManifest) -> SchedulingPolicy
    /// The app's background time left, in seconds; `nil` when it has no limit now.
    func remaining(_ identifier: BundleID) -> Double?

    // MARK: Asking

    /// Sets the capability's one deadline on the core's timer, replacing the one it had
    /// (`nil` clears it); when it comes the core calls ``AppCapability/deadlineReached(in:)``.
    /// A capability keeps no timer of its own.
    func setDeadline(_ deadline: Duration?, for capability: any AppCapability)
    /// Sends a notice on the app's own connection, when it has one.
    func notify(_ identifier: BundleID, _ body: DaemonMessage.Body)
    /// Takes or releases an assertion (`audio`, `location`) that keeps the app running in the
    /// background.
    func setAssertion(_ assertion: BackgroundAssertion, held: Bool, for identifier: BundleID)
    /// Wakes a suspended app for a reason of the capability's; any other state is left.
    /// - Returns: Whether it was woken.
    @discardableResult
    func wakeIfSuspended(_ identifier: BundleID, because reason: String) -> Bool
    /// Freezes a background player between refills of its audio ring, when nothing else
    /// needs it to run (``RefillFreeze/allows(_:inFront:)``), or thaws it. Anything sent to the
    /// app, and any change of its life, thaws it first.
    func holdForRefill(_ identifier: BundleID, frozen: Bool)
    /// Launches an app that is not running into the background, for an event.
    func launchInBackground(_ identifier: BundleID, reason: LaunchReason) throws(ProtocolError)
    /// Clears a force quit: a person asked for the app (a media command).
    func clearForceQuit(_ identifier: BundleID)
    /// Opens the app in front for a person (a notification they chose).
    func open(_ identifier: BundleID) throws(ProtocolError) -> Done
    /// An app asked for a service nothing was decided for: the question waits for a person
    /// (`bgctl prompts`, a desktop notification), whose answer comes back through
    /// ``AppCapability/authorize(_:in:)``.
    func askPerson(_ identifier: BundleID, for service: AuthorizationService, asks: String, usage: String?)

    // MARK: Event windows (decision 0010)

    /// Delivers an event: launches, wakes or tells the app, and opens a window of background
    /// time for it. Capabilities call it as ``deliverEvent(_:_:window:payload:task:session:)``.
    func deliver(
        _ reason: LaunchReason, to identifier: BundleID, window: EventWindowKind?, payload: JSONValue?, task: String?,
        session: String?
    ) throws(ProtocolError) -> (done: Done, window: EventWindowID?)
    /// Opens a window of background time for an app that is running.
    @discardableResult
    func openEventWindow(_ identifier: BundleID, kind: EventWindowKind) -> EventWindowID?
    /// The app completed a window. - Returns: Whether it was open.
    @discardableResult
    func completeWindow(_ identifier: BundleID, _ window: EventWindowID) -> Bool
    /// Ends a window the app did not complete (its conditions broke).
    func cutWindow(_ identifier: BundleID, _ window: EventWindowID)
}

extension AppCore {
    /// Sets the capability's deadline at a wall-clock date (a persisted schedule's), converted
    /// by the core's clock (``CoreClock/instant(of:)``).
    package func setDeadline(atWallClock date: Date?, for capability: any AppCapability) {
        setDeadline(date.map(clock.instant(of:)), for: capability)
    }

    /// A logger that names the app.
    package func appLogger(_ identifier: BundleID) -> Logger { appLogger(identifier, pid: nil) }

    /// Delivers an event (``deliver(_:to:window:payload:task:session:)``), naming only what it
    /// has. A name of its own: with the requirement's, it would stand in for a conformer's
    /// missing witness and call itself.
    package func deliverEvent(
        _ identifier: BundleID, _ reason: LaunchReason, window: EventWindowKind? = nil, payload: JSONValue? = nil,
        task: String? = nil, session: String? = nil
    ) throws(ProtocolError) -> (done: Done, window: EventWindowID?) {
        try deliver(reason, to: identifier, window: window, payload: payload, task: task, session: session)
    }
}
