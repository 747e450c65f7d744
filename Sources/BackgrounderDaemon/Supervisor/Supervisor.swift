import BackgrounderCore
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Starts app executables as children in their own session and container, sends their
/// output to a per-app log, and reports each exit.
///
/// Processes are started with `posix_spawn` and reaped by a thread per app blocked in
/// `waitpid`: no polling, and no Foundation `Process` (see docs/decisions/0002).
final class Supervisor: Sendable {
    /// A running app process.
    struct Launched: Sendable, Hashable {
        /// The process the daemon started (it leads its session and process group).
        var pid: Int32
        /// Where its processes live.
        var container: AppContainer
    }

    let mechanism: any SuspensionMechanism
    private let logDirectory: String
    private let dataDirectory: String
    private let socketPath: String
    private let logger: Logger

    init(mechanism: any SuspensionMechanism, stateDirectory: String, socketPath: String, logger: Logger) throws {
        self.mechanism = mechanism
        self.logDirectory = stateDirectory + "/logs"
        self.dataDirectory = stateDirectory + "/data"
        self.socketPath = socketPath
        self.logger = logger
        try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The app's own directory for what it keeps between launches (its container, as on iOS),
    /// passed to it as `BACKGROUNDER_DATA_DIR`.
    func dataPath(for bundleIdentifier: String) -> String {
        dataDirectory + "/" + bundleIdentifier
    }

    /// The file an app's standard output and error go to.
    func logPath(for bundleIdentifier: String) -> String {
        logDirectory + "/" + bundleIdentifier + ".log"
    }

    /// Launches a bundle's executable.
    /// - Parameters:
    ///   - bundle: The app.
    ///   - reason: Why it is launched, passed to the app.
    ///   - onExit: Called once, from the reaper thread, when the process is gone.
    /// - Returns: The process and its container.
    /// - Throws: ``DaemonError`` when the container or the process cannot be made.
    func launch(
        _ bundle: ValidatedBundle,
        reason: LaunchReason,
        onExit: @escaping @Sendable (ExitStatus) -> Void
    ) throws -> Launched {
        let identifier = bundle.manifest.bundleIdentifier
        let container = try mechanism.prepare(appID: identifier)
        // The shell joins the container, then becomes the app: no window in which the app
        // runs outside its cgroup.
        let script = [container.prologue, "cd \"$(dirname \"$0\")\" || exit 126", "exec \"$0\" \"$@\""]
            .filter { !$0.isEmpty }.joined(separator: "\n")
        let data = dataPath(for: identifier)
        try? FileManager.default.createDirectory(
            atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = ProcessInfo.processInfo.environment.merging([
            "BACKGROUNDER_DATA_DIR": data,
            "BACKGROUNDER_SOCKET": socketPath,
            "BACKGROUNDER_BUNDLE_ID": identifier,
            "BACKGROUNDER_LAUNCH_REASON": reason.rawValue,
        ]) { $1 }
        let pid = try ProcessLauncher.spawn(
            "/bin/sh",
            arguments: ["-c", script, bundle.executablePath],
            environment: environment,
            output: logPath(for: identifier)
        )
        let launched = Launched(pid: pid, container: container)
        let thread = Thread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            onExit(ExitStatus(waitStatus: status))
        }
        thread.name = "reaper-\(pid)"
        thread.start()
        return launched
    }

    /// CPU time of every process of the app, in seconds.
    func cpuSeconds(_ launched: Launched) -> Double {
        if let path = launched.container.cgroupPath,
            let text = try? String(contentsOfFile: path + "/cpu.stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("usage_usec ") }),
            let microseconds = Double(line.split(separator: " ")[1])
        {
            return microseconds / 1e6
        }
        return ProcessStat.read(launched.pid)?.cpuSeconds ?? 0
    }

    /// Sends SIGTERM to the app's process group (not to a frozen app: thaw it first).
    func requestTermination(_ launched: Launched) {
        Glibc.kill(-launched.pid, SIGTERM)
    }

    /// Kills every process of the app at once.
    func kill(_ launched: Launched) {
        do {
            try mechanism.kill(launched.container, leader: launched.pid)
        } catch {
            logger.error("\(error); falling back to SIGKILL of the process group")
            Glibc.kill(-launched.pid, SIGKILL)
        }
    }
}
