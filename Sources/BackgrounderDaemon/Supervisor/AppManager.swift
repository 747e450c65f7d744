import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Logging
import NIOCore

/// Runs apps through their life cycle: launches them, tells them what happens, suspends,
/// resumes and terminates them as the policy says, and answers `bgctl open/home/lock/quit/ps`.
///
/// Time-based rules run from one timer per app, set to the life cycle's next deadline: no
/// polling, so an idle daemon with suspended apps does not wake up.
actor AppManager {
    private let supervisor: Supervisor
    let registry: BundleRegistry
    let store: StateStore
    let policy: any BackgroundPolicy
    let logger: Logger
    private let origin = ContinuousClock.now
    private let codec = LineCodec()

    var apps: [String: ManagedApp] = [:]
    var foreground: String?
    private var lockedForeground: String?
    var forceQuit: Set<String>
    /// Who asked for which location, and the regions being watched (AppManager+Location.swift).
    var location: LocationBook
    /// Audio sessions, verdicts and remote commands (AppManager+Audio.swift).
    var audio = AudioBook()
    /// The audio engine's service, when the daemon has one.
    let audioService: AudioService?

    /// How long an app may take to exit after SIGTERM (or after `willTerminate`) before it is killed.
    static let terminationGrace: Duration = .seconds(3)

    init(
        supervisor: Supervisor, registry: BundleRegistry, store: StateStore, policy: any BackgroundPolicy,
        audio: AudioService?, logger: Logger
    ) {
        self.supervisor = supervisor
        self.registry = registry
        self.store = store
        self.policy = policy
        self.logger = logger
        self.forceQuit = (try? store.forceQuitBundles()) ?? []
        self.location = LocationBook(store: store, logger: logger)
        self.audioService = audio
        self.audio.microphoneGrants = ((try? store.authorizationLevels(service: "microphone")) ?? [:])
            .mapValues { $0 == "granted" }
    }

    /// The suspension mechanism's name, for `bgctl status`.
    nonisolated var mechanismName: String { supervisor.mechanism.name }
    /// The policy's name, for `bgctl status`.
    nonisolated var policyName: String { policy.name }

    var now: Duration { ContinuousClock.now - origin }

    func appLogger(_ identifier: String, pid: Int32? = nil) -> Logger {
        var logger = self.logger
        logger[metadataKey: "bundle"] = "\(identifier)"
        if let pid { logger[metadataKey: "app.pid"] = "\(pid)" }
        return logger
    }

    /// The app's record, created from the registry on first use.
    func app(_ identifier: String) throws(ProtocolError) -> ManagedApp {
        if let app = apps[identifier] { return app }
        guard let bundle = registry.catalog.loaded[identifier] else {
            throw ProtocolError(.failed, "no loaded bundle has the identifier '\(identifier)' (see `bgctl bundles`)")
        }
        guard bundle.manifest.kind == .application else {
            throw ProtocolError(.failed, "\(identifier) is a policy plug-in, not an app")
        }
        let app = ManagedApp(bundle: bundle, policy: policy)
        apps[identifier] = app
        return app
    }

    // MARK: User actions

    /// `bgctl open`: launches the app in the foreground, or brings it there.
    func open(_ identifier: String) throws(ProtocolError) -> Done {
        var app = try app(identifier)
        if forceQuit.remove(identifier) != nil {
            try? store.setForceQuit(identifier, false)
        }
        lockedForeground = nil
        if let previous = foreground, previous != identifier {
            sendToBackground(previous)
        }
        foreground = identifier
        if app.process == nil {
            try launch(identifier, reason: .user, foreground: true)
            app = apps[identifier]!
            return Done(detail: "launched \(identifier) (pid \(app.process?.pid ?? 0))", state: app.lifecycle.state)
        }
        let actions = app.lifecycle.moveToForeground(now: now)
        apps[identifier] = app
        perform(actions, for: identifier)
        return Done(detail: "\(identifier) is in the foreground", state: apps[identifier]?.lifecycle.state)
    }

    /// `bgctl home`: the foreground app goes to the background.
    func home() -> Done {
        guard let identifier = foreground else { return Done(detail: "no app is in the foreground") }
        foreground = nil
        sendToBackground(identifier)
        return Done(detail: "\(identifier) went to the background", state: apps[identifier]?.lifecycle.state)
    }

    /// `bgctl lock`: as home, remembering the app for `unlock`.
    func lock() -> Done {
        lockedForeground = foreground
        let done = home()
        return Done(detail: "locked; " + done.detail, state: done.state)
    }

    /// `bgctl unlock`: the app that was in front comes back.
    func unlock() throws(ProtocolError) -> Done {
        guard let identifier = lockedForeground else { return Done(detail: "unlocked; no app was in the foreground") }
        lockedForeground = nil
        guard apps[identifier]?.process != nil else {
            return Done(detail: "unlocked; \(identifier) is no longer running")
        }
        return try open(identifier)
    }

    /// `bgctl quit`: force quit, remembered so most events do not relaunch it.
    func quit(_ identifier: String) throws(ProtocolError) -> Done {
        var app = try app(identifier)
        forceQuit.insert(identifier)
        try? store.setForceQuit(identifier, true)
        if foreground == identifier { foreground = nil }
        guard app.process != nil else { return Done(detail: "\(identifier) was not running; marked as force-quit") }
        let actions = app.lifecycle.terminate(.forceQuit)
        apps[identifier] = app
        perform(actions, for: identifier)
        return Done(detail: "force-quitting \(identifier)", state: app.lifecycle.state)
    }

    /// An event for an app: relaunch, wake or tell it, as ``EventRouting`` decides.
    func wake(_ identifier: String, for reason: LaunchReason) throws(ProtocolError) -> Done {
        var app = try app(identifier)
        let decision = EventRouting.decide(
            reason,
            for: app.bundle.manifest,
            state: app.lifecycle.state,
            forceQuit: forceQuit.contains(identifier)
        )
        let logger = appLogger(identifier, pid: app.process?.pid)
        switch decision {
        case .refuse(let why):
            logger.info("\(reason.rawValue) event not delivered: \(why)")
            throw ProtocolError(.failed, why)
        case .launchInBackground:
            try launch(identifier, reason: reason, foreground: false)
            return Done(detail: "relaunched \(identifier) into the background for \(reason.rawValue)", state: .inactive)
        case .wake:
            let actions = app.lifecycle.wake(now: now)
            apps[identifier] = app
            perform(actions, for: identifier)
            notify(identifier, .event(EventNotice(reason: reason)))
            logger.info("woken for \(reason.rawValue)")
            return Done(detail: "woke \(identifier) for \(reason.rawValue)", state: app.lifecycle.state)
        case .deliver:
            notify(identifier, .event(EventNotice(reason: reason)))
            return Done(detail: "delivered \(reason.rawValue) to \(identifier)", state: app.lifecycle.state)
        }
    }

    /// Memory is short: ends the first app jetsam's order names, without notice.
    ///
    /// The kernel's pressure signal ends only suspended apps; an app that is running for the
    /// person (foreground, background work, audio) is ended only when pressure is critical.
    /// - Parameter critical: Whether running apps may be ended too.
    /// - Returns: What was done.
    @discardableResult
    func relieveMemoryPressure(critical: Bool) -> Done {
        let candidates = apps.values.compactMap { app -> Jetsam.Candidate? in
            guard let process = app.process, app.lifecycle.terminating == nil else { return nil }
            guard critical || app.lifecycle.state == .suspended else { return nil }
            return Jetsam.Candidate(
                identifier: app.identifier,
                state: app.lifecycle.state,
                residentBytes: ProcessStat.residentBytes(process.pid),
                isForeground: foreground == app.identifier,
                playsAudio: app.lifecycle.assertions.contains("audio")
            )
        }
        guard let victim = Jetsam.order(candidates).first, var app = apps[victim] else {
            logger.notice("memory pressure, but no app to end")
            return Done(detail: "memory pressure: no app to end")
        }
        let megabytes = (candidates.first { $0.identifier == victim }?.residentBytes ?? 0) / 1_048_576
        appLogger(victim, pid: app.process?.pid).notice("memory pressure: ending it (\(megabytes) MB resident)")
        let actions = app.lifecycle.terminate(.memoryPressure)
        apps[victim] = app
        perform(actions, for: victim)
        return Done(detail: "memory pressure: ended \(victim) (\(megabytes) MB)", state: app.lifecycle.state)
    }

    func sendToBackground(_ identifier: String) {
        guard var app = apps[identifier] else { return }
        let actions = app.lifecycle.moveToBackground(now: now)
        apps[identifier] = app
        perform(actions, for: identifier)
    }

    // MARK: Launching

    func launch(_ identifier: String, reason: LaunchReason, foreground: Bool) throws(ProtocolError) {
        var app = try app(identifier)
        let now = self.now
        let window = policy.crashLoopWindow(for: app.bundle.manifest)
        app.recentCrashes.removeAll { now - $0 > window }
        if app.recentCrashes.count >= policy.crashLoopLimit(for: app.bundle.manifest) {
            let until = (app.recentCrashes.first ?? now) + window
            app.throttledUntil = until
            apps[identifier] = app
            let wait = String(format: "%.1f", (until - now).seconds)
            throw ProtocolError(
                .failed,
                "\(identifier) is crash-looping (\(app.recentCrashes.count) crashes in \(window)); try again in \(wait) s"
            )
        }
        app.throttledUntil = nil
        let launched: Supervisor.Launched
        do {
            launched = try supervisor.launch(app.bundle, reason: reason) { [weak self] status in
                Task { await self?.exited(identifier, status: status) }
            }
        } catch {
            throw ProtocolError(.failed, "cannot launch \(identifier): \(error)")
        }
        app.process = launched
        app.launchReason = reason
        app.lifecycle.launched(foreground: foreground, now: now)
        apps[identifier] = app
        appLogger(identifier, pid: launched.pid).info(
            "launched (\(reason.rawValue)), output in \(supervisor.logPath(for: identifier))")
    }

    /// The reaper saw the process end.
    func exited(_ identifier: String, status: ExitStatus) {
        guard var app = apps[identifier], let process = app.process else { return }
        let logger = appLogger(identifier, pid: process.pid)
        let description: String
        if let reason = app.lifecycle.terminating {
            description = "terminated: \(reason.rawValue)"
            logger.notice("\(description) (\(status))")
        } else if status.isCrash {
            description = "crashed: \(status)"
            logger.error("\(description)")
            app.recentCrashes.append(now)
        } else {
            description = "exited: \(status)"
            logger.info("\(description)")
        }
        supervisor.kill(process)  // descendants it left behind go with it
        supervisor.mechanism.release(process.container)
        app.timer?.cancel()
        app.timer = nil
        app.channel?.close(promise: nil)
        app.channel = nil
        app.process = nil
        app.lastExit = description
        app.lifecycle.exited()
        apps[identifier] = app
        if foreground == identifier { foreground = nil }
        resetLocationDelivery(identifier)
        audioAppExited(identifier)
    }

    // MARK: App requests

    /// An app introduces itself; the claim holds only for a process the daemon launched for it.
    func checkIn(_ identifier: String, peer: PeerCredentials, channel: any Channel) throws(ProtocolError)
        -> CheckInReply
    {
        guard var app = apps[identifier], let process = app.process else {
            throw ProtocolError(
                .failed, "\(identifier) was not launched by this daemon; apps are started with `bgctl open`")
        }
        guard supervisor.mechanism.contains(peer.pid, container: process.container, leader: process.pid) else {
            logger.warning("pid \(peer.pid) claimed to be \(identifier) but is not one of its processes; refused")
            throw ProtocolError(
                .failed, "pid \(peer.pid) is not a process of \(identifier); an app can act only as itself")
        }
        app.channel = channel
        let actions = app.lifecycle.checkedIn(now: now)
        apps[identifier] = app
        resetLocationDelivery(identifier)
        perform(actions, for: identifier)
        updateLocationAssertion(identifier)
        deliverPendingRemoteCommands(identifier)
        return CheckInReply(launchReason: app.launchReason, state: apps[identifier]?.lifecycle.state ?? .inactive)
    }

    /// Whether `pid` is one of the processes of an app the daemon runs.
    func isAppProcess(_ pid: Int32) -> Bool {
        apps.values.contains { app in
            guard let process = app.process else { return false }
            return supervisor.mechanism.contains(pid, container: process.container, leader: process.pid)
        }
    }

    /// `BEGIN_TASK` from a checked-in app.
    func beginTask(_ identifier: String, named name: String) -> TaskReference {
        guard var app = apps[identifier] else { return TaskReference(task: 0) }
        let task = app.lifecycle.beginTask(named: name, now: now)
        apps[identifier] = app
        reschedule(identifier)
        return TaskReference(task: task ?? 0)
    }

    /// `END_TASK` from a checked-in app.
    func endTask(_ identifier: String, task: Int) -> Done {
        guard var app = apps[identifier] else { return Done(detail: "no such app") }
        let actions = app.lifecycle.endTask(task, now: now)
        apps[identifier] = app
        perform(actions, for: identifier)
        return Done(detail: "ended task \(task)", state: app.lifecycle.state)
    }

    /// The app's connection closed (it may reconnect).
    func disconnected(_ identifier: String, channel: any Channel) {
        guard apps[identifier]?.channel === channel else { return }
        apps[identifier]?.channel = nil
    }

    // MARK: Listing

    /// `bgctl ps`.
    func list() -> AppList {
        let now = self.now
        let bundles = registry.catalog.sortedLoaded.filter { $0.manifest.kind == .application }
        let audioCounters = audioCounters()
        return AppList(
            apps: bundles.map { bundle in
                let identifier = bundle.manifest.bundleIdentifier
                let app = apps[identifier]
                let lifecycle = app?.lifecycle
                var assertions = (lifecycle?.tasks ?? [:]).sorted { $0.key < $1.key }.map { "task:\($0.value)" }
                assertions += (lifecycle?.assertions ?? []).sorted()
                let throttled = app?.throttledUntil.flatMap { until in
                    until > now
                        ? "crash loop; launches refused for \(String(format: "%.1f", (until - now).seconds)) s" : nil
                }
                return AppInfo(
                    id: identifier,
                    name: bundle.manifest.name,
                    pid: app?.process?.pid,
                    state: lifecycle?.state ?? .notRunning,
                    modes: bundle.manifest.sortedModeNames,
                    assertions: assertions,
                    backgroundTimeRemaining: lifecycle?.backgroundTimeRemaining(now: now)?.seconds,
                    cpuSeconds: app?.process.map { supervisor.cpuSeconds($0) } ?? 0,
                    lastExit: app?.lastExit,
                    throttled: throttled,
                    forceQuit: forceQuit.contains(identifier),
                    audioUnderruns: audioCounters[identifier]?.underruns,
                    audioOverruns: audioCounters[identifier]?.overruns
                )
            }
        )
    }

    // MARK: Carrying out decisions

    func perform(_ actions: [AppLifecycle.Action], for identifier: String) {
        guard let app = apps[identifier] else { return }
        let logger = appLogger(identifier, pid: app.process?.pid)
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
            case .suspend:
                guard let process = app.process else { continue }
                do {
                    try supervisor.mechanism.freeze(process.container, leader: process.pid)
                    logger.info("suspended (\(supervisor.mechanism.name))")
                } catch {
                    logger.error("could not suspend: \(error)")
                }
            case .resume:
                guard let process = app.process else { continue }
                do {
                    try supervisor.mechanism.thaw(process.container, leader: process.pid)
                    logger.info("resumed")
                    // Fixes that queued while it was frozen go now.
                    flushLocations(identifier)
                } catch {
                    logger.error("could not resume: \(error)")
                }
            case .terminate(let reason):
                terminate(identifier, reason: reason)
            }
        }
        reschedule(identifier)
        // A change of state may change who is heard (the foreground app left, say).
        applyAudioFocus()
    }

    func notify(_ identifier: String, _ body: DaemonMessage.Body) {
        guard let channel = apps[identifier]?.channel, let data = try? codec.encode(DaemonMessage(body)) else { return }
        channel.writeAndFlush(ByteBuffer(bytes: data), promise: nil)
    }

    /// SIGTERM (after a notice, a moment to exit by itself), a grace period, then kill.
    private func terminate(_ identifier: String, reason: TerminationReason) {
        guard let process = apps[identifier]?.process else { return }
        let logger = appLogger(identifier, pid: process.pid)
        logger.notice("terminating: \(reason.rawValue)")
        let supervisor = self.supervisor
        if reason == .memoryPressure {
            // Jetsam gives no notice and no grace.
            supervisor.kill(process)
            return
        }
        let noticeGiven = reason == .exitsOnSuspend || reason == .forceQuit || reason == .daemonShutdown
        Task { [weak self] in
            if noticeGiven {
                // willTerminate was sent: let the app save and exit by itself first.
                try? await Task.sleep(for: .seconds(1))
                guard await self?.isRunning(identifier, pid: process.pid) == true else { return }
            }
            supervisor.requestTermination(process)
            try? await Task.sleep(for: Self.terminationGrace)
            guard await self?.isRunning(identifier, pid: process.pid) == true else { return }
            logger.warning("did not exit within \(Self.terminationGrace) of SIGTERM; killing")
            supervisor.kill(process)
        }
    }

    private func isRunning(_ identifier: String, pid: Int32) -> Bool {
        apps[identifier]?.process?.pid == pid
    }

    /// One timer per app, at its next deadline.
    func reschedule(_ identifier: String) {
        apps[identifier]?.timer?.cancel()
        guard let deadline = apps[identifier]?.lifecycle.nextDeadline else {
            apps[identifier]?.timer = nil
            return
        }
        let delay = max(.zero, deadline - now)
        apps[identifier]?.timer = Task { [weak self] in
            try? await Task.sleep(for: delay)
            guard !Task.isCancelled else { return }
            await self?.deadlineReached(identifier)
        }
    }

    private func deadlineReached(_ identifier: String) {
        guard var app = apps[identifier] else { return }
        app.timer = nil
        let actions = app.lifecycle.evaluate(now: now)
        apps[identifier] = app
        perform(actions, for: identifier)
    }

    /// Ends every app, for daemon shutdown.
    func terminateAll() async {
        for identifier in apps.keys where apps[identifier]?.process != nil {
            var app = apps[identifier]!
            let actions = app.lifecycle.terminate(.daemonShutdown)
            apps[identifier] = app
            perform(actions, for: identifier)
        }
        let deadline = ContinuousClock.now + Self.terminationGrace + .seconds(2)
        while apps.values.contains(where: { $0.process != nil }) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
