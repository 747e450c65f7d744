import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderDaemon
import BackgrounderLocation
import BackgrounderNotifications
public import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The real `backgrounderd` executable, run as a child with its own socket, state
/// directory and bundle directories under a temporary directory.
public final class DaemonProcess: Sendable {
    /// The control socket.
    public let socketPath: String
    /// The state directory.
    public let stateDirectory: String
    /// The `--bundles` directories: the apps it launches run from them.
    private let bundleDirectories: [String]
    private let process: ChildProcess
    /// The cgroup the daemon runs in (a launcher may have moved it), read once it answered:
    /// its group of app cgroups lies under it, and is cleared from there after it stops.
    private let cgroup: String?

    /// Starts the daemon and waits until it answers on its socket.
    /// - Parameters:
    ///   - directory: Where its socket, state and log go.
    ///   - bundleDirectories: `--bundles` directories.
    ///   - gpsd: `--gpsd`; by default a port nobody listens on.
    ///   - pulseServer: `--pulse-server`; by default a socket that does not exist, so a
    ///     desktop's PulseAudio is never touched.
    ///   - extraArguments: More flags.
    ///   - environment: Variables added to the daemon's environment (this process's).
    ///     `XDG_DATA_HOME` and `XDG_DATA_DIRS` point into `directory` unless given here, so
    ///     a daemon started without `--bundles` never loads bundles this machine has installed.
    ///   - launcher: A command that runs the daemon, such as `ip netns exec NAME`; the
    ///     launcher must exec the daemon so the child's pid stays the daemon's.
    /// - Throws: ``HarnessError`` when it does not come up.
    public init(
        directory: TemporaryDirectory,
        bundleDirectories: [String] = [],
        gpsd: String? = nil,
        pulseServer: String? = nil,
        extraArguments: [String] = [],
        environment: [String: String] = [:],
        launcher: [String] = []
    ) async throws {
        socketPath = directory.appending("run/backgrounderd.sock")
        stateDirectory = directory.appending("state")
        self.bundleDirectories = bundleDirectories
        var arguments = ["--socket", socketPath, "--state-dir", stateDirectory, "--log-level", "debug"]
        // A busy CI machine shows real memory pressure; tests that are not about jetsam must
        // not have their apps ended by it (MemoryPressureTests turns it back on).
        if !extraArguments.contains("--watch-memory-pressure") {
            arguments.append("--ignore-memory-pressure")
        }
        for bundles in bundleDirectories { arguments += ["--bundles", bundles] }
        arguments += ["--gpsd", try gpsd ?? "127.0.0.1:\(LoopbackPort.free())"]
        arguments += ["--pulse-server", pulseServer ?? "unix:\(directory.path)/no-pulse/native"]
        let command = launcher + [Locations.product("backgrounderd")]
        process = try ChildProcess(
            command[0],
            Array(command.dropFirst()) + arguments + extraArguments.filter { $0 != "--watch-memory-pressure" },
            environment: [
                "XDG_DATA_HOME": directory.appending("data"), "XDG_DATA_DIRS": directory.appending("system-data"),
                // No bus unless the test brings one: a daemon under test must not publish
                // players or follow the screen lock of the desktop the tests run on.
                "DBUS_SESSION_BUS_ADDRESS": "", "DBUS_SYSTEM_BUS_ADDRESS": "",
            ].merging(environment) { _, given in given },
            logPath: directory.appending("backgrounderd-\(UUID().uuidString.prefix(4)).log")
        )
        let socketPath = self.socketPath
        let process = self.process
        // A minute only catches a hang: a sanitized daemon on a loaded machine takes seconds.
        let ready = await waitUntil(timeout: .seconds(60)) {
            guard process.isRunning else { return true }
            return (try? ControlClient(socketPath: socketPath, timeout: .seconds(2))) != nil
        }
        cgroup = CgroupFreezer.cgroup(ofProcess: process.pid)
        guard ready, process.isRunning else {
            // Thrown from init, so no test holds it to stop: stopped here.
            await process.stop(grace: .seconds(5))
            await Self.clearCgroups(stateDirectory: stateDirectory, cgroup: cgroup)
            throw HarnessError("backgrounderd did not start: \(process.output)")
        }
    }

    /// Ends the apps a stopped daemon left in its cgroups and removes them. A killed app's
    /// cgroup empties only when the kernel has torn the process down (seconds for a sanitized
    /// one on a loaded machine), so this waits for the group to go.
    private static func clearCgroups(stateDirectory: String, cgroup: String?) async {
        guard case .success(let freezer) = CgroupFreezer.discover(stateDirectory: stateDirectory, cgroup: cgroup)
        else { return }
        let removed = await waitUntil(timeout: .seconds(30)) {
            _ = freezer.clearLeftovers()
            return freezer.removeBase()
        }
        if !removed { print("DaemonProcess: \(freezer.base) is still there 30 s after its daemon stopped") }
    }

    /// The daemon's process id.
    public var pid: Int32 { process.pid }
    /// Whether it is still running.
    public var isRunning: Bool { process.isRunning }
    /// Its log so far.
    public var log: String { process.output }
    /// Its exit status, or `nil` while it runs.
    public var terminationStatus: Int32? { process.terminationStatus }

    /// A fresh client connection.
    public func client(timeout: Duration = .seconds(10)) throws -> ControlClient {
        try ControlClient(socketPath: socketPath, timeout: timeout)
    }

    /// Sends one request on a fresh connection and waits for the reply on a thread of its
    /// own: a request that waits for an app (a remote command waits for its answer, launch
    /// included) would otherwise hold one of the cooperative pool's two threads.
    /// - Parameters:
    ///   - body: The request.
    ///   - timeout: How long the connection waits for the reply; it bounds a failure only.
    public func request(_ body: ClientMessage.Body, timeout: Duration = .seconds(30)) async throws
        -> DaemonMessage.Body
    {
        let socketPath = self.socketPath
        return try await onOwnThread {
            try ControlClient(socketPath: socketPath, timeout: timeout).request(body).body
        }
    }

    /// The daemon's status, through a fresh connection.
    public func status() throws -> DaemonStatus {
        let reply = try client().request(.status)
        guard case .status(let status) = reply.body else {
            throw HarnessError("expected STATUS, got \(reply.className)")
        }
        return status
    }

    /// Sends a signal to the daemon.
    public func signal(_ signal: Int32) { process.signal(signal) }

    /// Waits for the daemon to exit.
    @discardableResult
    public func waitForExit(timeout: Duration) async -> Bool { await process.waitForExit(timeout: timeout) }

    /// Stops the daemon with SIGTERM (then SIGKILL after the grace period).
    ///
    /// Apps the daemon leaves behind when it goes (killed, or stopped with `--live-restore`) are
    /// ended and their cgroups removed too, so nothing a test started outlives it.
    /// - Returns: Whether it stopped gracefully.
    @discardableResult
    public func stop() async -> Bool {
        let stopped = await process.stop(grace: .seconds(10))
        await Self.clearCgroups(stateDirectory: stateDirectory, cgroup: cgroup)
        // Apps outside any cgroup (a daemon in a network namespace, whose /sys has no cgroup2,
        // suspends with SIGSTOP, and a stopped app does not take the SIGTERM of a shutdown):
        // every process still running from one of its bundles.
        for pid in Self.processes(runningFrom: bundleDirectories) { kill(pid, SIGKILL) }
        return stopped
    }

    /// The processes whose executable lies under one of `directories`.
    private static func processes(runningFrom directories: [String]) -> [Int32] {
        guard !directories.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc")
        else { return [] }
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(entry)/exe"),
                directories.contains(where: { executable.hasPrefix($0 + "/") })
            else { return nil }
            return pid
        }
    }
}
