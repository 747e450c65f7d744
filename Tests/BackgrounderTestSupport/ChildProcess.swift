import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
import BackgrounderDaemon
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A real child process started by a test, with its output in a log file, stopped the way
/// a service manager would: SIGTERM to its process group, a grace period, then SIGKILL.
///
/// Started as the daemon starts apps (``ProcessLauncher``) and reaped with
/// `waitpid(pid, WNOHANG)`, never with Foundation's `Process` (docs/decisions/0002).
public final class ChildProcess: Sendable {
    /// The child's process id (also its process group id).
    public let pid: Int32
    /// Where standard output and standard error go.
    public let logPath: String
    private let exitStatus = Locked<Int32?>(nil)

    /// Starts a program in a session and process group of its own.
    /// - Parameters:
    ///   - executable: The program's path.
    ///   - arguments: Its arguments.
    ///   - environment: Extra environment variables, on top of this process's.
    ///   - logPath: The file that receives its output.
    /// - Throws: When the program cannot be started.
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String] = [:],
        logPath: String
    ) throws {
        self.logPath = logPath
        let child = try ProcessLauncher.spawn(
            executable,
            arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            output: logPath,
            truncate: true,
            mode: 0o644
        )
        pid = child
        LiveChildren.shared.insert(child)
    }

    deinit {
        if isRunning {
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    /// Reaps the child if it has exited; returns its wait status.
    private func reap() -> Int32? {
        exitStatus.withLock { stored in
            if let stored { return stored }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                stored = status
                LiveChildren.shared.remove(pid)
            }
            return stored
        }
    }

    /// Whether it is still running.
    public var isRunning: Bool { reap() == nil }

    /// The exit code (or 128 + signal number when a signal ended it), or `nil` while it runs.
    public var terminationStatus: Int32? {
        guard let status = reap() else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Everything it has printed so far.
    public var output: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// Sends a signal to the child's whole process group (gpsfake's gpsd, parec...).
    public func signal(_ signal: Int32) {
        kill(-pid, signal)
    }

    /// Waits for the child to exit.
    /// - Parameter timeout: The longest wait.
    /// - Returns: Whether it exited in time.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Bool {
        await waitUntil(timeout: timeout, interval: .milliseconds(20)) { !isRunning }
    }

    /// Stops the child: SIGTERM, up to `grace` to exit, then SIGKILL.
    /// - Parameter grace: How long it may take to stop cleanly.
    /// - Returns: Whether it stopped within the grace period (false: it had to be killed).
    @discardableResult
    public func stop(grace: Duration = .seconds(5)) async -> Bool {
        guard isRunning else { return true }
        signal(SIGTERM)
        if await waitForExit(timeout: grace) { return true }
        signal(SIGKILL)
        await waitForExit(timeout: .seconds(5))
        return false
    }
}

/// Every child still running, so none outlives the test run: tests stop their children
/// from a `defer`red task, which may not get to run before the runner exits.
final class LiveChildren: Sendable {
    static let shared = LiveChildren()
    private let groups = Locked<Set<Int32>>([])

    private init() {
        atexit {
            for group in LiveChildren.shared.groups.withLock({ $0 }) {
                kill(-group, SIGKILL)
            }
        }
    }

    func insert(_ group: Int32) { _ = groups.withLock { $0.insert(group) } }
    func remove(_ group: Int32) { _ = groups.withLock { $0.remove(group) } }
}
