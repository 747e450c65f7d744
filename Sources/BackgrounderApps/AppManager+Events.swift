import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// Events for apps and the windows of background time they open: the core's half of
/// everything the system does for an app that is not in front.
extension AppManager {
    /// An event for an app: relaunch, wake or tell it, as ``EventRouting`` decides, and open
    /// a window of background time for it when `window` is given.
    ///
    /// The app hears `EVENT` (naming the window) at once when it can, or as soon as a process
    /// launched for it checks in.
    /// - Parameters:
    ///   - window: The kind of window the event opens (its length is the policy's), or `nil`
    ///     for an event that gives no time.
    ///   - payload: A push's payload.
    ///   - task: A task request's identifier.
    ///   - session: A background session's identifier (`download`).
    /// - Returns: What was done, and the window when one opened.
    /// - Throws: ``ProtocolError`` `invalidState` when the routing rules refuse the event,
    ///   or what a launch throws.
    package func deliverEvent(
        _ identifier: BundleID, _ reason: LaunchReason, window: EventWindowKind? = nil,
        payload: JSONValue? = nil, task: String? = nil, session: String? = nil
    ) throws(ProtocolError) -> (done: Done, window: EventWindowID?) {
        let app = try app(identifier)
        let decision = EventRouting.decide(
            reason, for: app.bundle.manifest, state: app.lifecycle.state, forceQuit: forceQuit.contains(identifier))
        let logger = appLogger(identifier, pid: app.process?.pid)
        let detail: String
        switch decision {
        case .refuse(let why):
            logger.info("\(reason.rawValue) event not delivered: \(why)")
            throw ProtocolError(.invalidState, why)
        case .launchInBackground where awaitingFirstUnlock:
            // As on a device with a passcode: nothing launches before the first unlock. The
            // event waits with the app, which is launched for it then.
            launchesAwaitingUnlock[identifier, default: []].append(
                DeferredLaunch(reason: reason, window: window, payload: payload, task: task, session: session))
            logger.notice("\(reason.rawValue) event waits for the first unlock after boot")
            return (
                Done(detail: "\(identifier) will be launched for \(reason.rawValue) after the first unlock since boot"),
                nil
            )
        case .launchInBackground:
            try launch(identifier, reason: reason, foreground: false)
            detail = "relaunched \(identifier) into the background for \(reason.rawValue)"
        case .wake:
            apply(identifier) { $0.wake(now: $1) }
            logger.info("woken for \(reason.rawValue)")
            detail = "woke \(identifier) for \(reason.rawValue)"
        case .deliver:
            detail = "delivered \(reason.rawValue) to \(identifier)"
        }
        let length = window.map { schedulingPolicy(for: app.bundle.manifest).windowLength($0) }
        let opened = window.flatMap { openEventWindow(identifier, kind: $0) }
        let notice = EventNotice(
            reason: reason, window: opened, seconds: opened == nil ? nil : length?.seconds, payload: payload,
            task: task,
            session: session
        )
        if canHear(identifier) {
            notify(identifier, .event(notice))
        } else {
            apps[identifier]?.pendingEvents.append(notice)
        }
        let state = apps[identifier]?.lifecycle.state
        return (Done(detail: detail, state: state, backgroundTimeRemaining: remaining(identifier)), opened)
    }

    /// The policy's scheduling numbers for an app in the device's power state now.
    package func schedulingPolicy(for manifest: AppManifest) -> SchedulingPolicy {
        schedulingNumbers(manifest, externalPower)
    }

    /// Opens the window the policy gives an event of this kind (a location event that woke or
    /// launched the app).
    /// - Returns: The window, or `nil` when the app runs no code in the background.
    @discardableResult
    package func openEventWindow(_ identifier: BundleID, kind: EventWindowKind) -> EventWindowID? {
        guard let manifest = manifest(of: identifier) else { return nil }
        let length = schedulingPolicy(for: manifest).windowLength(kind)
        let window = openWindow(identifier, kind: kind, length: length)
        if let window { appLogger(identifier).info("\(kind.rawValue) window \(window) open for \(length)") }
        return window
    }

    /// Opens a window of background time for a running app.
    /// - Returns: The window, or `nil` when the app has no process or is being ended.
    package func openWindow(_ identifier: BundleID, kind: EventWindowKind, length: Duration) -> EventWindowID? {
        guard apps[identifier]?.process != nil else { return nil }
        let id = nextWindowID
        nextWindowID += 1
        var opened = false
        apply(identifier) { lifecycle, now in
            opened = lifecycle.openWindow(id, kind: kind, length: length, now: now)
            return []
        }
        return opened ? id : nil
    }

    /// The app ended a window with its completion handler.
    /// - Returns: Whether the window was open; a second completion, or one after the window
    ///   ran out, finds it closed.
    package func completeWindow(_ identifier: BundleID, _ window: EventWindowID) -> Bool {
        var open = false
        apply(identifier) { lifecycle, now in
            guard let actions = lifecycle.completeWindow(window, now: now) else { return [] }
            open = true
            return actions
        }
        return open
    }

    /// Cuts a window short: the app hears its expiration now and it ends after the warning.
    package func cutWindow(_ identifier: BundleID, _ window: EventWindowID) {
        apply(identifier) { $0.cutWindow(window, now: $1) }
    }

    /// Seconds of background time the app has left, or `nil` when unlimited.
    package func remaining(_ identifier: BundleID) -> Double? {
        apps[identifier]?.lifecycle.backgroundTimeRemaining(now: now)?.seconds
    }

    /// Tells the app its background time when it moved since it was last told: woken, a
    /// window opened or closed, a task or an assertion begun or ended.
    package func tellBackgroundTimeIfChanged(_ identifier: BundleID) {
        guard let app = apps[identifier], app.channel != nil else { return }
        let deadline = app.lifecycle.backgroundDeadline
        guard !app.toldBackgroundTime || app.toldBackgroundDeadline != deadline else { return }
        apps[identifier]?.toldBackgroundTime = true
        apps[identifier]?.toldBackgroundDeadline = deadline
        notify(identifier, .backgroundTime(BackgroundTimeNotice(backgroundTimeRemaining: remaining(identifier))))
    }
}
