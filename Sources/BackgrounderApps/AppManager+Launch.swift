import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starting an app's process and hearing it end.
extension AppManager {
    /// Starts the app: re-validates its bundle, refuses a crash loop, makes its connection
    /// and hands the rest to the ``Supervisor``.
    package func launch(_ identifier: BundleID, reason: LaunchReason, foreground: Bool) throws(ProtocolError) {
        var app = try app(identifier)
        // A bundle is launched only as it was when last validated: checked again now, and
        // taken as the last scan loaded it (a reload may have changed or refused it).
        do {
            let current = try registry.bundleToLaunch(identifier, lastPath: app.bundle.path)
            app.adopt(current, policy: policy)
        } catch {
            appLogger(identifier).error("launch refused: \(error)")
            apps[identifier] = app
            throw ProtocolError(.failed, "cannot launch \(identifier): \(error)")
        }
        let now = self.now
        let window = policy.crashLoopWindow(for: app.bundle.manifest)
        let limit = policy.crashLoopLimit(for: app.bundle.manifest)
        app.throttledUntil = app.crashLoop.throttledUntil(launchingAt: now, limit: limit, window: window)
        if let until = app.throttledUntil {
            apps[identifier] = app
            let wait = String(format: "%.1f", (until - now).seconds)
            throw ProtocolError(
                .limitReached,
                "\(identifier) is crash-looping (\(app.crashLoop.crashes.count) crashes in \(window)); try again in \(wait) s"
            )
        }
        let launched: Supervisor.Launched
        do {
            // The app's identity is the connection the daemon makes for it, not a claim.
            let pair = try AppChannels.makePair()
            defer { close(pair.app) }
            do {
                launched = try supervisor.launch(app.bundle, reason: reason, channel: pair.app) { [weak self] status in
                    Task { await self?.exited(identifier, status: status) }
                }
            } catch {
                close(pair.daemon)
                throw error
            }
            channels.adopt(pair.daemon, for: AppLaunch(bundle: identifier, pid: launched.pid, uid: launched.uid))
        } catch {
            throw ProtocolError(.failed, "cannot launch \(identifier): \(error)")
        }
        app.process = launched
        app.launchedFingerprint = registry.fingerprint(ofBundleAt: app.bundle.path)
        app.launchReason = reason
        app.lifecycle.launched(foreground: foreground, now: now, checkInDeadline: limits.checkInDeadline)
        apps[identifier] = app
        // A background launch has a check-in deadline: its timer starts now.
        reschedule(identifier)
        recordProcess(identifier)
        appLogger(identifier, pid: launched.pid).info(
            "launched (\(reason.rawValue)), output in \(supervisor.logPath(for: identifier))")
        tell(identifier, .launched(reason))
    }

    /// The reaper saw the process end.
    package func exited(_ identifier: BundleID, status: ExitStatus) {
        guard var app = apps[identifier], let process = app.process else { return }
        let logger = appLogger(identifier, pid: process.pid)
        let exit: AppExit
        if let reason = app.lifecycle.terminating {
            exit = status.exit(.terminated, reason: reason.rawValue)
            logger.notice("\(exit)")
        } else if status.isCrash {
            exit = status.exit(.crashed)
            logger.error("\(exit)")
            app.crashLoop.crashed(at: now)
        } else {
            exit = status.exit(.exited)
            logger.info("\(exit)")
        }
        supervisor.markEnd(of: identifier, "\(exit)")
        launchEnded(identifier, pid: process.pid, exit: exit)
        supervisor.kill(process)  // descendants it left behind go with it
        forgetProcess(identifier, pid: process.pid)
        supervisor.mechanism.release(process.container)
        channels.close(for: AppLaunch(bundle: identifier, pid: process.pid, uid: process.uid))
        deadlines.set(nil, for: .app(identifier))
        app.channel?.close(promise: nil)
        app.channel = nil
        app.process = nil
        app.lastExit = exit
        app.pendingEvents = []
        app.recorded = nil
        app.lifecycle.exited()
        apps[identifier] = app
        if foreground == identifier { foreground = nil }
        tell(identifier, .exited)
    }
}
