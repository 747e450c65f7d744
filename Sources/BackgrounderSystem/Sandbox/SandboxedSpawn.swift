import CSandbox

#if canImport(Glibc)
    import Glibc
#endif

/// One start of an app through `CSandbox`: every string and descriptor prepared here, in
/// the daemon, so the child between fork and execve only makes system calls.
package struct SandboxedSpawn {
    /// The program.
    package var executable: String
    /// Its arguments, the program name first.
    package var arguments: [String]
    /// Its whole environment.
    package var environment: [String: String]
    /// Its working directory.
    package var directory: String
    /// Receives its standard output and standard error.
    package var output: Int32
    /// Becomes its descriptor 3, or -1.
    package var channel: Int32 = -1
    /// An open `cgroup.procs` of the app's cgroup, or -1.
    package var cgroupProcs: Int32 = -1
    /// The app's cgroup directory, to start the child in at once (`CLONE_INTO_CGROUP`), or -1.
    package var cgroupDirectory: Int32 = -1
    /// A Landlock ruleset, or -1.
    package var landlockRuleset: Int32 = -1
    /// The uid and gid to run as, or `nil` for the daemon's.
    package var identity: (uid: UInt32, gid: UInt32)?
    /// With an identity or a user namespace of its own, the most processes it may have (0: no
    /// limit).
    package var processLimit = 0
    /// The most data memory each of its processes may map, in bytes (0: no limit).
    package var memoryLimit = 0
    /// With an identity: a /proc of its own showing only its uid's processes, and the
    /// Landlock rights to read it (0 without a ruleset).
    package var privateProc = false
    package var procAccess: UInt64 = 0
    /// With a private /proc, or a user namespace of its own: directories bound noexec in the
    /// app's mount namespace (its data and temporary directories), at most two.
    package var noexecDirectories: [String] = []
    /// Without an identity: a user namespace of its own, the daemon's uid and gid mapped to
    /// themselves, holding its IPC and mount namespaces.
    package var ownUserNamespace = false
    /// With a user namespace of its own: files covered with /dev/null there (the session bus
    /// sockets).
    package var hiddenPaths: [String] = []
    /// A seccomp filter answering `clone3` with ENOSYS (no `CLONE_INTO_CGROUP` out of its cgroup).
    package var refuseClone3 = false
    /// No code but its files' (no writable-executable memory, no memfd, userfaultfd or
    /// `SHM_EXEC`).
    package var refuseDynamicCode = false
    /// `ptrace` refused (EPERM).
    package var refusePtrace = false

    /// Starts the process.
    /// - Returns: Its pid; it leads its own session and process group.
    /// - Throws: ``DaemonError`` naming the step that failed in the child and its error.
    package func start() throws -> Int32 {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let noexec = noexecDirectories.prefix(2).map { strdup($0) } + [nil, nil]
        let hidden = hiddenPaths.map { strdup($0) } + [nil]
        let maps = [strdup("\(geteuid()) \(geteuid()) 1\n"), strdup("\(getegid()) \(getegid()) 1\n")]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
            noexec.forEach { free($0) }
            maps.forEach { free($0) }
            hidden.forEach { free($0) }
        }
        return try executable.withCString { executablePath in
            try directory.withCString { directoryPath in
                try argv.withUnsafeBufferPointer { argvBuffer in
                    try envp.withUnsafeBufferPointer { envpBuffer in
                        try hidden.withUnsafeBufferPointer { hiddenBuffer in
                            var spec = bg_sandbox_spawn(
                                executable: executablePath,
                                argv: argvBuffer.baseAddress,
                                envp: envpBuffer.baseAddress,
                                directory: directoryPath,
                                output_fd: output,
                                channel_fd: channel,
                                cgroup_procs_fd: cgroupProcs,
                                cgroup_fd: cgroupDirectory,
                                landlock_ruleset_fd: landlockRuleset,
                                change_identity: identity == nil ? 0 : 1,
                                uid: identity?.uid ?? 0,
                                gid: identity?.gid ?? 0,
                                process_limit: Int32(clamping: processLimit),
                                memory_limit: UInt64(max(0, memoryLimit)),
                                private_proc: privateProc ? 1 : 0,
                                proc_access: procAccess,
                                noexec_first: UnsafePointer(noexec[0]),
                                noexec_second: UnsafePointer(noexec[1]),
                                own_user_namespace: ownUserNamespace && identity == nil ? 1 : 0,
                                uid_map: UnsafePointer(maps[0]),
                                gid_map: UnsafePointer(maps[1]),
                                hidden_paths: hiddenBuffer.baseAddress,
                                refuse_clone3: refuseClone3 ? 1 : 0,
                                refuse_dynamic_code: refuseDynamicCode ? 1 : 0,
                                refuse_ptrace: refusePtrace ? 1 : 0
                            )
                            return try Self.spawnRetryingBusy(&spec, executable: executable)
                        }
                    }
                }
            }
        }
    }

    private static func spawnRetryingBusy(_ spec: inout bg_sandbox_spawn, executable: String) throws -> Int32 {
        var failure = bg_sandbox_failure()
        for _ in 0..<50 {
            let pid = bg_sandbox_spawn_process(&spec, &failure)
            if pid > 0 { return pid }
            // A freshly copied executable is "busy" while another thread's fork still holds
            // the copy's write descriptor; that passes in a moment.
            guard failure.step == Int32(BG_STEP_EXECVE.rawValue), failure.error == ETXTBSY else { break }
            usleep(20_000)
        }
        let step = String(cString: bg_sandbox_step_name(failure.step))
        throw DaemonError(
            .configuration, path: executable, "cannot start: \(step): \(String(cString: strerror(failure.error)))")
    }
}
