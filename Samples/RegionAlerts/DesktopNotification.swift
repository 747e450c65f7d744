import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A desktop notification through `notify-send`, when the session has a bus to send it on.
///
/// The child is spawned and then checked on from the main actor every tenth of a second, never
/// waited for: the app is suspended soon after an alert and must not hold the main actor in
/// `waitpid`. One still running after the time limit is ended (SIGTERM, then SIGKILL a second
/// later) and reaped, so no zombie stays behind.
enum DesktopNotification {
    /// Shows a notification; does nothing without a session bus or `notify-send`, and ignores
    /// whether `notify-send` succeeds.
    /// - Parameters:
    ///   - summary: The title.
    ///   - body: The text under it.
    ///   - environment: Where to look for `DBUS_SESSION_BUS_ADDRESS` and `PATH`.
    ///   - timeLimit: How long `notify-send` may take.
    /// - Returns: The child's process id, or `nil` when none was started.
    @MainActor
    @discardableResult
    static func show(
        _ summary: String,
        body: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        timeLimit: Duration = .seconds(5)
    ) -> pid_t? {
        guard let bus = environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty,
            let program = find("notify-send", in: environment["PATH"] ?? "/usr/bin:/bin"),
            let pid = spawn([program, "--app-name=RegionAlerts", "--", summary, body], environment: environment)
        else { return nil }
        Task { @MainActor in await reap(pid, timeLimit: timeLimit) }
        return pid
    }

    private static func find(_ name: String, in path: String) -> String? {
        path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// Starts the program with its output to /dev/null: the app's log is for alerts.
    private static func spawn(_ arguments: [String], environment: [String: String]) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        // ETXTBSY: a program just written may still be open for writing in a child another
        // thread is forking at this moment; that copy of the descriptor closes at its exec.
        for _ in 0..<200 {
            let result = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
            if result == 0 { return pid }
            guard result == ETXTBSY else { return nil }
            usleep(10_000)
        }
        return nil
    }

    @MainActor
    private static func reap(_ pid: pid_t, timeLimit: Duration) async {
        let clock = ContinuousClock()
        let deadline = clock.now + timeLimit
        var status: Int32 = 0
        var signalled: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if clock.now >= deadline + .seconds(1), signalled == SIGTERM {
                kill(pid, SIGKILL)
                signalled = SIGKILL
            } else if clock.now >= deadline, signalled == 0 {
                kill(pid, SIGTERM)
                signalled = SIGTERM
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }
}
