package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
package import Foundation
package import Logging

/// An app core for testing a capability without processes, in the manner of swift-nio's
/// `EmbeddedChannel`: apps are manifests with a state the test sets, suspension is a state
/// change (no freezer), time is a manual clock (``advance(by:)``), and every ask a capability
/// makes of the core is recorded (``asks``, ``notices``) and carried out on that state, so a
/// capability's rules run in milliseconds against the same contract the daemon gives it.
@AppCoreActor
package final class EmbeddedAppCore: AppCore {
    /// One app as the embedded core keeps it.
    package struct App: Sendable {
        package var manifest: AppManifest
        package var state: ApplicationState
        /// Whether its connection checked in (notices reach it).
        package var checkedIn: Bool
        package var forceQuit = false
        package var assertions: Set<BackgroundAssertion> = []
        package var remaining: Double?
    }

    /// What a capability asked the core for, in order.
    package enum Ask: Sendable, Hashable {
        case wake(BundleID, because: String)
        case launch(BundleID, LaunchReason)
        case assertion(BackgroundAssertion, held: Bool, BundleID)
        case openWindow(BundleID, EventWindowKind)
        case completeWindow(BundleID, EventWindowID)
        case cutWindow(BundleID, EventWindowID)
        case deliverEvent(BundleID, LaunchReason)
        case askPerson(BundleID, AuthorizationService, asks: String)
        case open(BundleID)
        case clearForceQuit(BundleID)
        case holdForRefill(BundleID, frozen: Bool)
    }

    package let logger: Logger
    package var policy: any BackgroundPolicy
    package private(set) var now: Duration = .zero
    /// The wall clock, moved on with ``now`` by ``advance(by:)``.
    package var wallClock = Date(timeIntervalSince1970: 1_800_000_000)
    package var clock: any CoreClock { ManualCoreClock(now: now, wallClock: wallClock) }
    /// The capabilities' deadlines on the core's timer, by capability.
    private var deadlines: [ObjectIdentifier: Duration] = [:]
    package var foreground: BundleID?
    package var idleSince: ContinuousClock.Instant?
    package var externalPower = true
    package var appDirectories: [String] = []
    package var apps: [BundleID: App] = [:]
    /// Notices sent on apps' connections, in order.
    package private(set) var notices: [(app: BundleID, body: DaemonMessage.Body)] = []
    package private(set) var asks: [Ask] = []
    /// The capabilities under test: told of the changes the core makes (a wake, a launch), as
    /// the daemon's core tells them.
    package var capabilities: [any AppCapability] = []
    /// Each app's process as the supervisor would give it (``process(of:)``): none unless a
    /// test says, so a capability that works on processes (resources) finds none by default.
    package var processes: [BundleID: Supervisor.Launched] = [:]
    private var nextWindow: EventWindowID = 1

    /// An empty core with the standard policy.
    package nonisolated init(policy: any BackgroundPolicy = StandardPolicy()) {
        self.policy = policy
        var logger = Logger(label: "embedded-core")
        logger.logLevel = .critical
        self.logger = logger
    }

    /// Adds an app in a state (checked in when running).
    package func add(_ manifest: AppManifest, state: ApplicationState) {
        apps[manifest.bundleIdentifier] = App(manifest: manifest, state: state, checkedIn: state != .notRunning)
    }

    /// Moves the manual clock (and the wall clock) on, and tells each capability whose
    /// deadline has come, soonest first, as the core's timer does.
    package func advance(by duration: Duration) {
        now += duration
        wallClock += duration.seconds
        let due = capabilities.compactMap { capability in
            deadlines[ObjectIdentifier(capability)].flatMap { $0 <= now ? (capability, $0) : nil }
        }
        for (capability, _) in due.sorted(by: { $0.1 < $1.1 }) {
            deadlines[ObjectIdentifier(capability)] = nil
            capability.deadlineReached(in: self)
        }
    }

    /// The deadline a capability has set on the core's timer, if any.
    package func deadline(of capability: any AppCapability) -> Duration? {
        deadlines[ObjectIdentifier(capability)]
    }

    /// The suspension mechanism, faked: the app moves to `state` (frozen or thawed, to the
    /// front or away from it) and the capabilities hear it, as the daemon's core tells them.
    package func move(_ identifier: BundleID, to state: ApplicationState) {
        guard let before = apps[identifier]?.state, before != state else { return }
        apps[identifier]?.state = state
        if state == .active {
            foreground = identifier
        } else if foreground == identifier {
            foreground = nil
        }
        tell(identifier, .moved(from: before, to: state))
    }

    /// The app's process ended, however it did: it is not running, holds nothing, and the
    /// capabilities hear it.
    package func exit(_ identifier: BundleID) {
        apps[identifier]?.state = .notRunning
        apps[identifier]?.checkedIn = false
        apps[identifier]?.assertions = []
        if foreground == identifier { foreground = nil }
        processes[identifier] = nil
        tell(identifier, .exited)
    }

    /// The notices sent to one app.
    package func notices(to app: BundleID) -> [DaemonMessage.Body] {
        notices.filter { $0.app == app }.map(\.body)
    }

    // MARK: AppCore

    package func appLogger(_ identifier: BundleID, pid: Int32?) -> Logger { logger }
    package func manifest(of identifier: BundleID) -> AppManifest? { apps[identifier]?.manifest }

    package func bundle(of identifier: BundleID) throws(ProtocolError) -> ValidatedBundle {
        guard let app = apps[identifier] else {
            throw ProtocolError(.notFound, "no loaded bundle has the identifier '\(identifier)'")
        }
        return ValidatedBundle(path: "/embedded/\(app.manifest.name).bundle", manifest: app.manifest)
    }

    package func state(of identifier: BundleID) -> ApplicationState { apps[identifier]?.state ?? .notRunning }
    package func isInFront(_ identifier: BundleID) -> Bool { apps[identifier]?.state == .active }
    package func isRunning(_ identifier: BundleID) -> Bool { state(of: identifier) != .notRunning }
    package func canHear(_ identifier: BundleID) -> Bool {
        isRunning(identifier) && apps[identifier]?.checkedIn == true
    }
    package func isForceQuit(_ identifier: BundleID) -> Bool { apps[identifier]?.forceQuit ?? false }

    package func assertions(of identifier: BundleID) -> Set<BackgroundAssertion> {
        apps[identifier]?.assertions ?? []
    }

    package func process(of identifier: BundleID) -> Supervisor.Launched? { processes[identifier] }
    package func containerPaths(of identifier: BundleID) -> [String] { [] }

    package func schedulingPolicy(for manifest: AppManifest) -> SchedulingPolicy {
        policy.scheduling(for: manifest, onExternalPower: externalPower)
    }

    package func remaining(_ identifier: BundleID) -> Double? { apps[identifier]?.remaining }

    package func notify(_ identifier: BundleID, _ body: DaemonMessage.Body) {
        guard canHear(identifier) else { return }
        notices.append((identifier, body))
    }

    package func setDeadline(_ deadline: Duration?, for capability: any AppCapability) {
        deadlines[ObjectIdentifier(capability)] = deadline
    }

    package func setAssertion(_ assertion: BackgroundAssertion, held: Bool, for identifier: BundleID) {
        asks.append(.assertion(assertion, held: held, identifier))
        let before = apps[identifier]?.assertions
        if held {
            apps[identifier]?.assertions.insert(assertion)
        } else {
            apps[identifier]?.assertions.remove(assertion)
        }
        // As the daemon's core: the capabilities hear a change, not a repeat.
        if apps[identifier]?.assertions != before { tell(identifier, .assertionsChanged) }
    }

    package func holdForRefill(_ identifier: BundleID, frozen: Bool) {
        asks.append(.holdForRefill(identifier, frozen: frozen))
    }

    @discardableResult
    package func wakeIfSuspended(_ identifier: BundleID, because reason: String) -> Bool {
        guard apps[identifier]?.state == .suspended else { return false }
        asks.append(.wake(identifier, because: reason))
        apps[identifier]?.state = .background
        tell(identifier, .moved(from: .suspended, to: .background))
        return true
    }

    package func launchInBackground(_ identifier: BundleID, reason: LaunchReason) throws(ProtocolError) {
        guard apps[identifier] != nil else { throw ProtocolError(.notFound, "no app \(identifier)") }
        guard !isRunning(identifier) else { return }
        asks.append(.launch(identifier, reason))
        // Launched, not yet checked in: notices wait for the check-in, as with a real process.
        apps[identifier]?.state = .background
        apps[identifier]?.checkedIn = false
        tell(identifier, .launched(reason))
    }

    /// The app's launch checked in: notices reach it from now on.
    package func checkIn(_ identifier: BundleID) {
        apps[identifier]?.checkedIn = true
        tell(identifier, .checkedIn)
    }

    private func tell(_ identifier: BundleID, _ change: LifecycleChange) {
        for capability in capabilities { capability.app(identifier, changed: change, in: self) }
    }

    package func clearForceQuit(_ identifier: BundleID) {
        asks.append(.clearForceQuit(identifier))
        apps[identifier]?.forceQuit = false
    }

    package func open(_ identifier: BundleID) throws(ProtocolError) -> Done {
        guard apps[identifier] != nil else { throw ProtocolError(.notFound, "no app \(identifier)") }
        asks.append(.open(identifier))
        apps[identifier]?.state = .active
        foreground = identifier
        return Done(detail: "opened \(identifier)", state: .active)
    }

    package func askPerson(
        _ identifier: BundleID, for service: AuthorizationService, asks question: String, usage: String?
    ) {
        asks.append(.askPerson(identifier, service, asks: question))
    }

    package func deliver(
        _ reason: LaunchReason, to identifier: BundleID, window: EventWindowKind?, payload: JSONValue?, task: String?,
        session: String?
    ) throws(ProtocolError) -> (done: Done, window: EventWindowID?) {
        guard apps[identifier] != nil else { throw ProtocolError(.notFound, "no app \(identifier)") }
        asks.append(.deliverEvent(identifier, reason))
        let opened = window.flatMap { openEventWindow(identifier, kind: $0) }
        return (Done(detail: "\(reason.rawValue) delivered to \(identifier)"), opened)
    }

    @discardableResult
    package func openEventWindow(_ identifier: BundleID, kind: EventWindowKind) -> EventWindowID? {
        asks.append(.openWindow(identifier, kind))
        defer { nextWindow += 1 }
        return nextWindow
    }

    @discardableResult
    package func completeWindow(_ identifier: BundleID, _ window: EventWindowID) -> Bool {
        asks.append(.completeWindow(identifier, window))
        return true
    }

    package func cutWindow(_ identifier: BundleID, _ window: EventWindowID) {
        asks.append(.cutWindow(identifier, window))
    }
}

/// The embedded core's clock, read at one moment: its deadlines fire from
/// ``EmbeddedAppCore/advance(by:)``, never by sleeping.
package struct ManualCoreClock: CoreClock {
    package let now: Duration
    package let wallClock: Date

    package func sleep(until deadline: Duration) async throws {
        while true { try await Task.sleep(for: .seconds(3600)) }
    }
}
