import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// What a person does: open, home, lock, unlock, quit; and the events and pressure a person
/// (or a test) stands in for.
extension AppManager {
    /// `bgctl open`: launches the app in the foreground, or brings it there. Refused while
    /// the screen is locked: as on iOS, nothing comes to the front behind the lock screen.
    ///
    /// With `wait`, a launch is answered once the process checked in; one that ends first is
    /// an error saying how it ended and what it wrote last, so a crash at start is not
    /// reported as a launch.
    package func open(_ request: OpenApp) async throws(ProtocolError) -> Done {
        let (done, launched) = try openNow(request.bundle)
        guard request.wait == true, let pid = launched else { return done }
        let identifier = request.bundle
        switch await launchOutcome(identifier, pid: pid) {
        case .checkedIn:
            return Done(detail: done.detail, state: apps[identifier]?.lifecycle.state)
        case .stillStarting:
            return Done(
                detail: done.detail
                    + "; it has not checked in after \(min(limits.checkInDeadline, Self.longestLaunchWait)) (does it use BackgroundKit?)",
                state: apps[identifier]?.lifecycle.state)
        case .exited(let exit, let lastOutput):
            var message = "\(identifier) (pid \(pid)) ended before it checked in: \(exit)"
            if lastOutput.isEmpty {
                message += "; it wrote nothing"
            } else {
                message += "; its last output (bgctl logs \(identifier)):"
                for line in lastOutput { message += "\n  " + line.escapedForTerminal }
            }
            throw ProtocolError(.failed, message)
        }
    }

    /// Opens the app without waiting for a launch to check in.
    package func open(_ identifier: BundleID) throws(ProtocolError) -> Done {
        try openNow(identifier).0
    }

    /// Opens the app at once: the reply, and the process's pid when this launched it.
    private func openNow(_ identifier: BundleID) throws(ProtocolError) -> (Done, launched: Int32?) {
        let app = try app(identifier)
        guard !screenLocked else {
            throw ProtocolError(
                .invalidState, "the screen is locked: unlock first (bgctl unlock), then open \(identifier)")
        }
        clearForceQuit(identifier)
        lockedForeground = nil
        setIdle(false)
        if let previous = foreground, previous != identifier {
            sendToBackground(previous)
        }
        foreground = identifier
        if app.process == nil {
            try launch(identifier, reason: .user, foreground: true)
            let launched = apps[identifier]
            let pid = launched?.process?.pid
            return (
                Done(detail: "launched \(identifier) (pid \(pid ?? 0))", state: launched?.lifecycle.state),
                pid
            )
        }
        let state = apply(identifier) { $0.moveToForeground(now: $1) }
        return (Done(detail: "\(identifier) is in the foreground", state: state), nil)
    }

    /// `bgctl home`: the foreground app goes to the background.
    package func home() -> Done {
        guard let identifier = foreground else { return Done(detail: "no app is in the foreground") }
        foreground = nil
        sendToBackground(identifier)
        return Done(detail: "\(identifier) went to the background", state: apps[identifier]?.lifecycle.state)
    }

    /// `bgctl lock`: as home, remembering the app for `unlock`.
    package func lock() -> Done {
        screenLocked = true
        lockedForeground = foreground
        let done = home()
        // Locked with nothing in front: the device is idle, as processing tasks need.
        setIdle(true)
        return Done(detail: "locked; " + done.detail, state: done.state)
    }

    /// `bgctl unlock`: the app that was in front comes back.
    package func unlock() throws(ProtocolError) -> Done {
        guard screenLocked else { return Done(detail: "the screen is not locked; nothing to unlock") }
        screenLocked = false
        setIdle(false)
        firstUnlockHappened()
        guard let identifier = lockedForeground else { return Done(detail: "unlocked; no app was in the foreground") }
        lockedForeground = nil
        guard apps[identifier]?.process != nil else {
            return Done(detail: "unlocked; \(identifier) is no longer running")
        }
        return try open(identifier)
    }

    /// `bgctl quit`: force quit, remembered so most events do not relaunch it.
    package func quit(_ identifier: BundleID) throws(ProtocolError) -> Done {
        let app = try app(identifier)
        forceQuit.insert(identifier)
        try? store.setForceQuit(identifier, true)
        if foreground == identifier { foreground = nil }
        tell(identifier, .forceQuit)
        guard app.process != nil else { return Done(detail: "\(identifier) was not running; marked as force-quit") }
        let state = apply(identifier) { lifecycle, _ in lifecycle.terminate(.forceQuit) }
        return Done(detail: "force-quitting \(identifier)", state: state)
    }

    /// `bgctl authorize ID SERVICE LEVEL`: handed to the capability that grants the service.
    package func authorize(_ request: Authorize) throws(ProtocolError) -> Done {
        let done = try capability(granting: request.service).authorize(request, in: self)
        settled(consent.decided(request.bundle, request.service))
        return done
    }

    package func sendToBackground(_ identifier: BundleID) {
        apply(identifier) { $0.moveToBackground(now: $1) }
    }
}
