package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
import Foundation
package import Logging
import NIOCore

/// The app core: every app's record and life cycle, on one actor, and the one way to change
/// them (``apply(_:_:)``), which carries out the actions the life cycle returns and tells
/// every ``AppCapability`` what changed.
///
/// What the core does itself: launching and reaping (AppManager+Launch.swift), a person's
/// actions (AppManager+UserActions.swift), an app's own requests (AppManager+AppRequests.swift)
/// and `bgctl ps` (AppManager+Listing.swift). Everything the system does *for* apps (location,
/// audio, ...) is a capability in a folder of its own.
///
/// Time-based rules run from one timer (``DeadlineTimer``) on one clock (``CoreClock``), set to
/// the soonest of the apps' next deadlines and the capabilities' next wakes: no polling, so an
/// idle daemon with suspended apps does not wake up.
@AppCoreActor
package final class AppManager {
    package nonisolated let supervisor: Supervisor
    /// Where the connections handed to apps at launch are served.
    package nonisolated let channels: AppChannels
    package nonisolated let registry: BundleRegistry
    package nonisolated let store: StateStore
    package nonisolated let policy: any BackgroundPolicy
    package nonisolated let logger: Logger
    /// Bounds on what one app can make the daemon do (check-in deadline, queues).
    package nonisolated let limits: AppLimits
    /// The core's one clock.
    package nonisolated let clock: any CoreClock
    /// The one timer, for the apps' deadlines and the capabilities'.
    lazy var deadlines = DeadlineTimer(clock: clock) { [weak self] owners in self?.deadlinesReached(owners) }
    private let codec = LineCodec()
    /// Location, audio, ...: told of every life-cycle change, in this order.
    private let capabilities: [any AppCapability]
    /// Keeps identities aside and exchanges them back (``retire(_:)``, ``adoptBundle(_:)``).
    package nonisolated let retirement: IdentityRetirement

    package var apps: [BundleID: ManagedApp] = [:]
    package var foreground: BundleID?
    package var lockedForeground: BundleID?
    /// Whether the screen is locked (`bgctl lock`, or logind's session).
    package var screenLocked = false
    /// Locked since boot and not yet unlocked: background launches wait, as on a device with
    /// a passcode before its first unlock.
    package var awaitingFirstUnlock = false
    /// Background launches that wait for the first unlock, by app: the events they were for.
    package var launchesAwaitingUnlock: [BundleID: [DeferredLaunch]] = [:]
    /// The policy's scheduling numbers for an app, on external power or not: event windows'
    /// lengths, fetch and push budgets.
    package let schedulingNumbers: @Sendable (AppManifest, _ onExternalPower: Bool) -> SchedulingPolicy
    /// Whether the device is on external power, as the condition monitor last saw it.
    package private(set) var externalPower = true
    /// What apps asked for that only a person may give, waiting for an answer.
    package var consent = ConsentPrompts()
    /// Prompts asked and settled, for the desktop to show as notifications and take back.
    package nonisolated let consentEvents: AsyncStream<ConsentEvent>
    package let consentEventSink: AsyncStream<ConsentEvent>.Continuation
    package var forceQuit: Set<BundleID>
    /// People waiting for a launch to check in or end (`bgctl open`), by app.
    var launchWaiters: [BundleID: [LaunchWaiter]] = [:]
    /// The next event window's identifier: unique within this run.
    package var nextWindowID: EventWindowID = 1
    /// Since when the device has been idle (locked, no app in front), for processing tasks.
    package var idleSince: ContinuousClock.Instant?
    /// This boot's id, recorded with every app process so a later run knows whether it may
    /// adopt it; `nil` (unreadable) records none.
    package let bootID: String?

    /// How long an app may take to exit after SIGTERM (or after `willTerminate`) before it is killed.
    package nonisolated static let terminationGrace: Duration = .seconds(3)

    /// Creates the core with the capabilities it serves.
    /// - Parameter capabilities: Each capability once; they hear life-cycle changes in this order.
    package nonisolated init(
        supervisor: Supervisor, channels: AppChannels, registry: BundleRegistry, store: StateStore,
        policy: any BackgroundPolicy, capabilities: [any AppCapability], retirement: IdentityRetirement,
        limits: AppLimits = AppLimits(),
        schedulingNumbers: @escaping @Sendable (AppManifest, _ onExternalPower: Bool) -> SchedulingPolicy = {
            _, _ in SchedulingPolicy()
        },
        bootID: String? = nil,
        clock: any CoreClock = SystemCoreClock(),
        logger: Logger
    ) {
        self.clock = clock
        self.bootID = bootID
        self.schedulingNumbers = schedulingNumbers
        self.limits = limits
        self.supervisor = supervisor
        self.channels = channels
        self.registry = registry
        self.store = store
        self.policy = policy
        self.logger = logger
        self.capabilities = capabilities
        self.retirement = retirement
        self.forceQuit = (try? store.forceQuitBundles()) ?? []
        (consentEvents, consentEventSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// The suspension mechanism's name, for `bgctl status`.
    package nonisolated var mechanismName: String {
        // Under signals, also what holds an app's identity when its processes leave the session.
        [supervisor.mechanism.name, supervisor.containment].compactMap { $0 }.joined(separator: "; ")
    }
    /// The app sandbox in force, for `bgctl status`.
    package nonisolated var sandboxSummary: String {
        // With the sandbox off there is nothing more to say.
        supervisor.sandbox.appUsers == nil && supervisor.sandbox.landlock == nil
            ? supervisor.sandbox.summary : supervisor.sandbox.summary + ", " + supervisor.volumesSummary
    }
    /// The policy's name, for `bgctl status`.
    package nonisolated var policyName: String { policy.name }

    package var now: Duration { clock.now }

    package func appLogger(_ identifier: BundleID, pid: Int32? = nil) -> Logger {
        var logger = self.logger
        logger[metadataKey: "bundle"] = "\(identifier)"
        if let pid { logger[metadataKey: "app.pid"] = "\(pid)" }
        return logger
    }

    // MARK: Records

    /// The app's record, created from the registry on first use.
    ///
    /// A running app is what it was launched as; one that is not running is what the
    /// registry loaded last, so a bundle updated and reloaded is seen at once by grants,
    /// requests and the next launch (as iOS installs an update over an app that is not
    /// running).
    package func app(_ identifier: BundleID) throws(ProtocolError) -> ManagedApp {
        if let app = apps[identifier], app.process != nil { return app }
        guard let bundle = registry.catalog.loaded[identifier] else {
            // No longer loaded: the record is kept so a launch can say why (the scan's
            // refusal), and the launch check refuses it.
            if let app = apps[identifier] { return app }
            throw ProtocolError(.notFound, "no loaded bundle has the identifier '\(identifier)' (see `bgctl bundles`)")
        }
        guard bundle.manifest.kind == .application else {
            throw ProtocolError(.badRequest, "\(identifier) is a policy plug-in, not an app")
        }
        var app = apps[identifier] ?? ManagedApp(bundle: bundle, policy: policy)
        app.adopt(bundle, policy: policy)
        apps[identifier] = app
        return app
    }

    /// The manifest that speaks for the app now (see ``app(_:)``), or `nil` when it is
    /// neither running nor loaded.
    package func manifest(of identifier: BundleID) -> AppManifest? {
        if let app = apps[identifier], app.process != nil { return app.bundle.manifest }
        return registry.catalog.loaded[identifier].flatMap { $0.manifest.kind == .application ? $0.manifest : nil }
    }

    /// The app's state; `.notRunning` for one the core has no record of.
    package func state(of identifier: BundleID) -> ApplicationState {
        apps[identifier]?.lifecycle.state ?? .notRunning
    }

    /// Whether the app is in front, or being launched there.
    package func isInFront(_ identifier: BundleID) -> Bool {
        apps[identifier]?.lifecycle.wantsForeground ?? false
    }

    /// Whether the app has a process.
    package func isRunning(_ identifier: BundleID) -> Bool { apps[identifier]?.process != nil }

    /// Whether the app's process checked in and its connection is open: notices reach it.
    package func canHear(_ identifier: BundleID) -> Bool {
        guard let app = apps[identifier] else { return false }
        return app.process != nil && app.channel != nil
    }

    /// The capability that grants `service`, for `bgctl authorize`.
    package func capability(granting service: AuthorizationService) throws(ProtocolError) -> any AppCapability {
        guard let capability = capabilities.first(where: { $0.authorizationServices.contains(service) }) else {
            let known = capabilities.flatMap(\.authorizationServices).map(\.rawValue)
            throw ProtocolError(
                .badRequest, "unknown service '\(service)' (known: \(known.joined(separator: ", ")))")
        }
        return capability
    }

    /// Tells every capability of a change.
    package func tell(_ identifier: BundleID, _ change: LifecycleChange) {
        for capability in capabilities { capability.app(identifier, changed: change, in: self) }
    }

    /// Tells every capability that the app's identity changed (``AppCapability/identityChanged(_:in:)``).
    package func tellIdentityChanged(_ identifier: BundleID) {
        for capability in capabilities { capability.identityChanged(identifier, in: self) }
    }

    /// What every capability adds to an app's `bgctl ps` row.
    package func describe(_ list: inout [AppInfo]) {
        for capability in capabilities { capability.describe(&list, in: self) }
    }

    /// What every capability says of itself in `bgctl status`, in the order they run, with
    /// its next wake: the deadline it holds on the core's one timer, as a wall-clock date.
    package func capabilityStatus() -> [CapabilityStatus] {
        capabilities.map { capability in
            var status = capability.status(in: self)
            status.nextWake = deadlines.deadline(of: .capability(ObjectIdentifier(capability))).map {
                clock.date(of: $0).timeIntervalSince1970
            }
            return status
        }
    }

    // MARK: Changing an app's life

    /// Applies one life-cycle input to an app and carries out the actions it returns: the
    /// only way an app's life-cycle state changes after launch.
    /// - Parameter input: The input, given the app's life cycle and the time now.
    /// - Returns: The app's state afterwards, or `nil` when the core has no record of it.
    @discardableResult
    package func apply(
        _ identifier: BundleID, _ input: (inout AppLifecycle, Duration) -> [AppLifecycle.Action]
    ) -> ApplicationState? {
        guard var app = apps[identifier] else { return nil }
        let before = app.lifecycle.state
        let actions = input(&app.lifecycle, now)
        apps[identifier] = app
        perform(actions, for: identifier, from: before)
        return apps[identifier]?.lifecycle.state
    }

    /// Takes or releases an assertion (`location`, `audio`) for a running app.
    package func setAssertion(_ assertion: BackgroundAssertion, held: Bool, for identifier: BundleID) {
        guard let before = apps[identifier], before.process != nil else { return }
        // Applied even when nothing is due at once: the app's timer moves to the grace
        // period's end (or goes, for unlimited time).
        apply(identifier) { $0.setAssertion(assertion, held: held, now: $1) }
        if apps[identifier]?.lifecycle.assertions != before.lifecycle.assertions {
            tell(identifier, .assertionsChanged)
        }
    }

    /// The screen locked (idle) or the device came into use: capabilities hear it when it
    /// changes (processing tasks start on idle and are expired when the person returns).
    package func setIdle(_ idle: Bool) {
        guard (idleSince != nil) != idle else { return }
        idleSince = idle ? ContinuousClock.now : nil
        for capability in capabilities { capability.deviceIdleChanged(idle: idle, in: self) }
    }

    /// The daemon is about to serve: every capability resumes what an earlier run stored.
    package func startCapabilities() {
        for capability in capabilities { capability.start(in: self) }
    }

    /// The daemon stopped serving: every capability cuts what is in flight.
    package func stopCapabilities() async {
        for capability in capabilities { await capability.stop(in: self) }
    }

    /// The condition monitor saw power or network change: the core keeps the power, and every
    /// capability hears both.
    package func conditionsChanged(externalPower: Bool, network: Bool) {
        self.externalPower = externalPower
        for capability in capabilities {
            capability.conditionsChanged(externalPower: externalPower, network: network, in: self)
        }
    }

    /// Wakes a suspended app for a reason a capability has (its audio plays again, a fix
    /// is due); an app in any other state is left as it is.
    /// - Returns: Whether it was woken.
    @discardableResult
    package func wakeIfSuspended(_ identifier: BundleID, because reason: String) -> Bool {
        guard let app = apps[identifier], app.lifecycle.state == .suspended else { return false }
        appLogger(identifier, pid: app.process?.pid).info("woken for \(reason)")
        apply(identifier) { $0.wake(now: $1) }
        return true
    }

    /// Launches an app that is not running into the background, for an event.
    /// - Throws: ``ProtocolError`` when it cannot be launched (throttled, refused bundle).
    package func launchInBackground(_ identifier: BundleID, reason: LaunchReason) throws(ProtocolError) {
        guard apps[identifier]?.process == nil else { return }
        if awaitingFirstUnlock {
            _ = try app(identifier)
            launchesAwaitingUnlock[identifier, default: []].append(DeferredLaunch(reason: reason))
            appLogger(identifier).notice("launch for \(reason.rawValue) waits for the first unlock after boot")
            throw ProtocolError(
                .invalidState,
                "\(identifier) will be launched after the first unlock since boot (the session is locked)")
        }
        try launch(identifier, reason: reason, foreground: false)
    }

    /// Clears a force quit: a person asked for the app (opened it, sent it a media command).
    package func clearForceQuit(_ identifier: BundleID) {
        if forceQuit.remove(identifier) != nil { try? store.setForceQuit(identifier, false) }
    }

    // MARK: Carrying out decisions

    private func perform(_ actions: [AppLifecycle.Action], for identifier: BundleID, from before: ApplicationState) {
        guard let app = apps[identifier] else { return }
        let logger = appLogger(identifier, pid: app.process?.pid)
        var closed: [EventWindowID] = []
        for action in actions {
            switch action {
            case .deliver(let event):
                notify(
                    identifier,
                    .lifecycle(
                        LifecycleNotice(
                            event: event,
                            state: app.lifecycle.state,
                            backgroundTimeRemaining: app.lifecycle.backgroundTimeRemaining(now: now)?.seconds
                        )
                    ))
                logger.debug("\(event.rawValue)")
            case .expireTasks(let tasks):
                logger.info("background time nearly up; expiring tasks \(tasks)")
                notify(identifier, .expire(ExpireTasks(tasks: tasks)))
            case .expireWindows(let windows):
                logger.info("event windows \(windows) nearly over; expiring them")
                notify(identifier, .expire(ExpireTasks(tasks: [], windows: windows)))
            case .windowsClosed(let windows):
                logger.info("event windows \(windows) closed")
                closed += windows
            case .suspend:
                guard let process = app.process else { continue }
                do {
                    try supervisor.mechanism.freeze(process.container, leader: process.pid)
                    confirmFrozen(process, logger: logger)
                } catch {
                    logger.error("could not suspend: \(error)")
                }
            case .resume:
                guard let process = app.process else { continue }
                do {
                    try supervisor.mechanism.thaw(process.container, leader: process.pid)
                    logger.info("resumed")
                } catch {
                    logger.error("could not resume: \(error)")
                }
            case .terminate(let reason):
                terminate(identifier, reason: reason)
            }
        }
        reschedule(identifier)
        recordProcess(identifier)
        endRefillFreezeIfNotAllowed(identifier)
        if !closed.isEmpty { tell(identifier, .windowsClosed(closed)) }
        let after = apps[identifier]?.lifecycle.state ?? .notRunning
        if after != before { tell(identifier, .moved(from: before, to: after)) }
    }

    /// Waits off the actor for the kernel to complete the freeze just asked for, and says when
    /// it has: the log's "suspended" means every process of the app stands still. A thaw
    /// before then ends the wait quietly.
    private func confirmFrozen(_ process: Supervisor.Launched, logger: Logger) {
        let mechanism = supervisor.mechanism
        Task.detached {
            do {
                if try await mechanism.waitUntilFrozen(process.container, leader: process.pid) {
                    logger.info("suspended (\(mechanism.name))")
                }
            } catch {
                logger.error("could not suspend: \(error)")
            }
        }
    }

    /// Sends a notice on the app's own connection, if it checked in.
    package func notify(_ identifier: BundleID, _ body: DaemonMessage.Body) {
        guard let channel = apps[identifier]?.channel, let data = try? codec.encode(DaemonMessage(body)) else { return }
        // A player frozen between refills hears at once, not when its ring runs low.
        if apps[identifier]?.refill.isFrozen == true { holdForRefill(identifier, frozen: false) }
        channel.writeAndFlush(ByteBuffer(bytes: data), promise: nil)
    }

    /// SIGTERM (after a notice, a moment to exit by itself), a grace period, then kill.
    private func terminate(_ identifier: BundleID, reason: TerminationReason) {
        guard let process = apps[identifier]?.process else { return }
        let logger = appLogger(identifier, pid: process.pid)
        logger.notice("terminating: \(reason.rawValue)")
        let supervisor = self.supervisor
        if reason == .memoryPressure {
            // Jetsam gives no notice and no grace.
            supervisor.kill(process)
            return
        }
        // The watchdog's reasons end an app that already had its warning (an expiration).
        let noticeGiven =
            switch reason {
            case .exitsOnSuspend, .forceQuit, .daemonShutdown, .bundleRemoved, .bundleReplaced: true
            case .backgroundTaskOverran, .refreshTaskOverran, .memoryPressure: false
            }
        Task { [weak self] in
            if noticeGiven {
                // willTerminate was sent: let the app save and exit by itself first.
                try? await BootSleep.sleep(for: .seconds(1))
                guard self?.isRunning(identifier, pid: process.pid) == true else { return }
            }
            supervisor.requestTermination(process)
            try? await BootSleep.sleep(for: Self.terminationGrace)
            guard self?.isRunning(identifier, pid: process.pid) == true else { return }
            logger.warning("did not exit within \(Self.terminationGrace) of SIGTERM; killing")
            supervisor.kill(process)
        }
    }

    private func isRunning(_ identifier: BundleID, pid: Int32) -> Bool {
        apps[identifier]?.process?.pid == pid
    }

    /// Sets the app's deadline on the core's timer: the life cycle's next.
    package func reschedule(_ identifier: BundleID) {
        tellBackgroundTimeIfChanged(identifier)
        deadlines.set(apps[identifier]?.lifecycle.nextDeadline, for: .app(identifier))
    }

    package func setDeadline(_ deadline: Duration?, for capability: any AppCapability) {
        deadlines.set(deadline, for: .capability(ObjectIdentifier(capability)))
    }

    private func deadlinesReached(_ owners: [DeadlineTimer.Owner]) {
        for owner in owners {
            switch owner {
            case .app(let identifier):
                apply(identifier) { $0.evaluate(now: $1) }
            case .capability(let id):
                capabilities.first { ObjectIdentifier($0) == id }?.deadlineReached(in: self)
            }
        }
    }

    /// How many apps have a process.
    package var runningCount: Int { apps.values.filter { $0.process != nil }.count }

    /// Ends every app, for daemon shutdown.
    package func terminateAll() async {
        deadlines.clearCapabilities()
        for identifier in apps.keys where apps[identifier]?.process != nil {
            apply(identifier) { lifecycle, _ in lifecycle.terminate(.daemonShutdown) }
        }
        let deadline = ContinuousClock.now + Self.terminationGrace + .seconds(2)
        while apps.values.contains(where: { $0.process != nil }) && ContinuousClock.now < deadline {
            try? await BootSleep.sleep(for: .milliseconds(50))
        }
    }
}
