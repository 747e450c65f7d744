import BackgrounderAppCore
package import BackgrounderCore

extension AppManager {
    /// Freezes a background player between refills of its audio ring, or thaws it
    /// (``RefillFreeze``). Its life-cycle state does not change: it is frozen the way the
    /// life cycle suspends (the cgroup freezer, or SIGSTOP), and only while the life cycle
    /// would have it run.
    package func holdForRefill(_ identifier: BundleID, frozen: Bool) {
        guard var app = apps[identifier] else { return }
        if frozen {
            guard !app.refill.isFrozen, let process = app.process,
                RefillFreeze.allows(app.lifecycle, inFront: foreground == identifier)
            else { return }
            do {
                try supervisor.mechanism.freeze(process.container, leader: process.pid)
            } catch {
                appLogger(identifier, pid: process.pid).warning("could not freeze between refills: \(error)")
                return
            }
            app.refill.froze(at: now)
        } else {
            guard app.refill.isFrozen else { return }
            app.refill.thawed(at: now)
            // Suspended meanwhile, it stays frozen: the life cycle's freeze is the one now.
            if let process = app.process, app.lifecycle.state != .suspended {
                do {
                    try supervisor.mechanism.thaw(process.container, leader: process.pid)
                } catch {
                    appLogger(identifier, pid: process.pid).error("could not thaw after a refill freeze: \(error)")
                }
            }
        }
        apps[identifier] = app
    }

    /// After any change of an app's life: a refill freeze ends when the app may no longer be
    /// held that way (it came to the front, began a task, was sent an event, was suspended
    /// or exited).
    func endRefillFreezeIfNotAllowed(_ identifier: BundleID) {
        guard let app = apps[identifier], app.refill.isFrozen,
            app.process == nil || !RefillFreeze.allows(app.lifecycle, inFront: foreground == identifier)
        else { return }
        holdForRefill(identifier, frozen: false)
    }

    /// Thaws every player frozen between refills: the daemon leaves its apps running for the
    /// next one (live restore), and none must wait frozen for a daemon that may not come.
    package func endRefillFreezes() {
        for identifier in apps.keys.sorted() where apps[identifier]?.refill.isFrozen == true {
            holdForRefill(identifier, frozen: false)
        }
    }
}
