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
    private let socketPath: String
    private let logger: Logger

    init(mechanism: any SuspensionMechanism, logDirectory: String, socketPath: String, logger: Logger) throws {
        self.mechanism = mechanism
        self.logDirectory = logDirectory
        self.socketPath = socketPath
        self.logger = logger
        try FileManager.default.createDirectory(atPath: logDirectory, withIntermediateDirectories: true)
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
        let environment = ProcessInfo.processInfo.environment.merging([
            "BACKGROUNDER_SOCKET": socketPath,
            "BACKGROUNDER_BUNDLE_ID": identifier,
            "BACKGROUNDER_LAUNCH_REASON": reason.rawValue,
        ]) { $1 }
        let pid = try spawn(
            "/bin/sh",
            ["-c", script, bundle.executablePath],
            environment: environment,
            logPath: logPath(for: identifier)
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

    private func spawn(_ executable: String, _ arguments: [String], environment: [String: String], logPath: String)
        throws -> Int32
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc's 0x80): the app leads its own session and process group.
        let setSession: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setSession))
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw DaemonError(.configuration, path: executable, "cannot start: \(String(cString: strerror(result)))")
        }
        return pid
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
