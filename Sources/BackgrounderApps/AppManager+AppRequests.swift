import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
package import NIOCore

/// What an app asks of the core on its own connection: checking in, and finite-length
/// background tasks.
extension AppManager {
    /// An app checks in on the connection the daemon handed that launch of it.
    package func checkIn(_ launch: AppLaunch, channel: any Channel) throws(ProtocolError) -> CheckInReply {
        let identifier = launch.bundle
        guard var app = apps[identifier], app.process?.pid == launch.pid else {
            throw ProtocolError(.notPermitted, "\(launch) has exited; this connection no longer speaks for the app")
        }
        app.channel = channel
        app.toldBackgroundTime = false
        apps[identifier] = app
        let state = apply(identifier) { $0.checkedIn(now: $1) }
        tell(identifier, .checkedIn)
        decideLaunch(identifier, pid: launch.pid, .checkedIn)
        // The events it was launched for come with the reply, so they follow the launch.
        let events = apps[identifier]?.pendingEvents ?? []
        apps[identifier]?.pendingEvents = []
        return CheckInReply(
            launchReason: app.launchReason, state: state ?? .inactive, events: events.isEmpty ? nil : events)
    }

    /// `BEGIN_TASK` from a checked-in app.
    /// - Returns: The task, or task 0 (`.invalid`) when the app has no background time left.
    /// - Throws: ``ProtocolError`` when the task is refused whatever the time: too many
    ///   open, or a name too long (``AppLifecycle/taskRefusal(named:)``).
    package func beginTask(_ identifier: BundleID, named name: String) throws(ProtocolError) -> TaskReference {
        guard var app = apps[identifier] else { return TaskReference(task: 0) }
        if let refusal = app.lifecycle.taskRefusal(named: name) {
            appLogger(identifier, pid: app.process?.pid).warning("background task refused: \(refusal)")
            throw ProtocolError(.limitReached, "background task refused: \(refusal)")
        }
        let task = app.lifecycle.beginTask(named: name, now: now)
        apps[identifier] = app
        if let task { appLogger(identifier, pid: app.process?.pid).debug("began task \(task) '\(name)'") }
        reschedule(identifier)
        return TaskReference(task: task ?? 0)
    }

    /// `END_TASK` from a checked-in app.
    package func endTask(_ identifier: BundleID, task: Int) -> Done {
        guard apps[identifier] != nil else { return Done(detail: "no such app") }
        let state = apply(identifier) { $0.endTask(task, now: $1) }
        return Done(detail: "ended task \(task)", state: state)
    }

    /// The app's connection closed (it may reconnect).
    package func disconnected(_ identifier: BundleID, channel: any Channel) {
        guard apps[identifier]?.channel === channel else { return }
        apps[identifier]?.channel = nil
    }
}
