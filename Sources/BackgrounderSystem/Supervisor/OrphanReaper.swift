package import BackgrounderCore
import BackgrounderProtocol
import CSandbox
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Under the signals mechanism the daemon is a child subreaper: a process that left its
/// app's session (`setsid`) and outlived its parent comes to the daemon, not to init, so its
/// ancestry still says it is an app's (``Supervisor/owner(of:)``). This thread reaps those
/// orphans when they exit; each app's lead process is ``ProcessWatch``'s.
///
/// No timer and no poll: the thread blocks in `waitid` while the daemon has children, and on
/// a condition while it has none, until the next launch.
package final class OrphanReaper: Sendable {
    /// Whether a lead process (or one being started) is the daemon's own to reap elsewhere.
    private let isLeader: @Sendable (Int32) -> Bool
    /// Held around a launch, from fork until the lead process is registered, so an app that
    /// exits at once is never taken for an orphan (``SignalFreezer/launching``).
    private let launching: Locked<Void>
    private let childStarted = NSCondition()
    private let children = Locked(false)

    /// Makes the daemon a subreaper and starts the thread.
    /// - Returns: The reaper, or the reason the kernel refused (the daemon then says so and
    ///   a child that left its session and outlived its app goes to init).
    package static func start(
        launching: Locked<Void>, isLeader: @escaping @Sendable (Int32) -> Bool
    ) -> Result<OrphanReaper, DaemonError> {
        let result = bg_become_child_subreaper()
        guard result == 0 else {
            return .failure(
                DaemonError(
                    .configuration, path: "prctl(PR_SET_CHILD_SUBREAPER)",
                    "refused: \(String(cString: strerror(-result)))"))
        }
        let reaper = OrphanReaper(launching: launching, isLeader: isLeader)
        startThread(named: "orphan-reaper") { reaper.run() }
        return .success(reaper)
    }

    private init(launching: Locked<Void>, isLeader: @escaping @Sendable (Int32) -> Bool) {
        self.launching = launching
        self.isLeader = isLeader
    }

    /// Told after each launch: the daemon has a child to wait for.
    package func childWasStarted() {
        childStarted.lock()
        children.withLock { $0 = true }
        childStarted.signal()
        childStarted.unlock()
    }

    private func run() {
        while true {
            let pid = bg_wait_any_exited()
            if pid == -ECHILD {
                childStarted.lock()
                children.withLock { $0 = false }
                while !children.withLock({ $0 }) { childStarted.wait() }
                childStarted.unlock()
                continue
            }
            guard pid > 0 else { continue }
            let orphan = launching.withLock { _ in !isLeader(pid) }
            if orphan {
                var status: Int32 = 0
                _ = waitpid(pid, &status, WNOHANG)
            } else {
                // A lead process: ProcessWatch reaps it, in a moment.
                usleep(1000)
            }
        }
    }
}
