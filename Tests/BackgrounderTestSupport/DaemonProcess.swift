public import BackgrounderProtocol
import Foundation

/// The real `backgrounderd` executable, run as a child with its own socket, state
/// directory and bundle directories under a temporary directory.
public final class DaemonProcess: Sendable {
    /// The control socket.
    public let socketPath: String
    /// The state directory.
    public let stateDirectory: String
    private let process: ChildProcess

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
        let ready = await waitUntil {
            guard process.isRunning else { return true }
            return (try? ControlClient(socketPath: socketPath, timeout: .seconds(2))) != nil
        }
        guard ready, process.isRunning else {
            throw HarnessError("backgrounderd did not start: \(process.output)")
        }
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
    /// - Returns: Whether it stopped gracefully.
    @discardableResult
    public func stop() async -> Bool { await process.stop(grace: .seconds(10)) }
}
