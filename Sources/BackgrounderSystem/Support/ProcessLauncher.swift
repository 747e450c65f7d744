#if canImport(Glibc)
    import Glibc
#endif

/// Starts programs the way everything in Backgrounder starts them (apps, and the test and
/// benchmark harnesses): `posix_spawn`, standard input from /dev/null, output and errors
/// to one file, a session (and so a process group) of its own, no signal blocked or ignored.
///
/// Not Foundation's `Process`, which reaps children on a shared thread that can block on
/// one long-lived child and miss the others (docs/decisions/0002).
public enum ProcessLauncher {
    /// Starts a program.
    /// - Parameters:
    ///   - executable: The program's path.
    ///   - arguments: Its arguments (without the program name).
    ///   - environment: Its whole environment.
    ///   - output: The file that receives standard output and error.
    ///   - truncate: Empty the file first instead of appending.
    ///   - mode: The file's permissions when it is created.
    /// - Returns: The process id, which is also its process group and session id.
    /// - Throws: ``DaemonError`` naming the program when it cannot be started.
    public static func spawn(
        _ executable: String,
        arguments: [String],
        environment: [String: String],
        output: String,
        truncate: Bool = false,
        mode: UInt32 = 0o600
    ) throws -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, output, O_WRONLY | O_CREAT | (truncate ? O_TRUNC : O_APPEND), mode_t(mode))
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID is glibc's 0x80: the child leads its own session and process group.
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
        var result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        // A freshly copied executable is "busy" while another thread's fork still holds the
        // copy's write descriptor; that passes in a moment.
        for _ in 0..<50 where result == ETXTBSY {
            usleep(20_000)
            result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard result == 0 else {
            throw DaemonError(.configuration, path: executable, "cannot start: \(String(cString: strerror(result)))")
        }
        return pid
    }
}
