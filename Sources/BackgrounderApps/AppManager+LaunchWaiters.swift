import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// How a launch a person waits for turned out (`bgctl open`).
package enum LaunchOutcome: Sendable, Hashable {
    /// The process checked in: the app runs.
    case checkedIn
    /// The process ended before it checked in: how, and the last lines it wrote.
    case exited(AppExit, lastOutput: [String])
    /// Neither within the check-in deadline: it runs, but has not spoken to the daemon.
    case stillStarting
}

/// One person waiting for one process.
struct LaunchWaiter {
    var pid: Int32
    var continuation: CheckedContinuation<LaunchOutcome, Never>
}

/// Waiting for a launch to check in or end, so `bgctl open` reports an app that crashes at
/// its start as the failure it is, with what the app said, instead of as a launch.
extension AppManager {
    /// How many of the app's last lines an exit before check-in reports.
    static let lastOutputLines = 10
    /// The longest a person waits for a launch, whatever the check-in deadline: `bgctl open`
    /// waits a little longer for the answer.
    package static let longestLaunchWait: Duration = .seconds(60)

    /// Waits until the process `pid` of the app checks in or ends, or the check-in deadline
    /// passes (on the core's clock; at most ``longestLaunchWait``).
    func launchOutcome(_ identifier: BundleID, pid: Int32) async -> LaunchOutcome {
        let deadline = now + min(limits.checkInDeadline, Self.longestLaunchWait)
        // The timeout is a task of its own, cancelled when the launch is decided first: it
        // runs only while someone waits.
        let timeout = Task { [weak self] in
            guard (try? await self?.clock.sleep(until: deadline)) != nil else { return }
            self?.decideLaunch(identifier, pid: pid, .stillStarting)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            guard apps[identifier]?.process?.pid == pid else {
                // Ended before the wait began (the actor ran its exit in between).
                let exit = apps[identifier]?.lastExit ?? AppExit(kind: .exited, reason: "ended at once")
                continuation.resume(
                    returning: .exited(
                        exit, lastOutput: supervisor.lastOutput(of: identifier, lines: Self.lastOutputLines)))
                return
            }
            if apps[identifier]?.channel != nil {
                continuation.resume(returning: .checkedIn)
                return
            }
            launchWaiters[identifier, default: []].append(LaunchWaiter(pid: pid, continuation: continuation))
        }
    }

    /// Tells whoever waits for the process `pid` of the app how its launch turned out.
    func decideLaunch(_ identifier: BundleID, pid: Int32, _ outcome: LaunchOutcome) {
        guard let waiters = launchWaiters[identifier] else { return }
        var left: [LaunchWaiter] = []
        for waiter in waiters {
            if waiter.pid == pid { waiter.continuation.resume(returning: outcome) } else { left.append(waiter) }
        }
        launchWaiters[identifier] = left.isEmpty ? nil : left
    }

    /// The process ended: a waiter hears how, and what it wrote last.
    func launchEnded(_ identifier: BundleID, pid: Int32, exit: AppExit) {
        guard launchWaiters[identifier]?.contains(where: { $0.pid == pid }) == true else { return }
        decideLaunch(
            identifier, pid: pid,
            .exited(exit, lastOutput: supervisor.lastOutput(of: identifier, lines: Self.lastOutputLines)))
    }
}
