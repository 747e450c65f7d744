package import BackgrounderCore
import CSandbox
import Foundation
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The sandbox every app is started in, as strong as this system allows, and what
/// `bgctl status` says about it (docs/SANDBOX.md, docs/decisions/0007).
///
/// Always, even with `--sandbox off`: `no_new_privs` and the minimal environment. With
/// Landlock: the file-system profile, and on ABI 6 and later signals and abstract Unix
/// sockets scoped to the app. Under a root daemon: a uid and gid of the app's own from
/// ``AppUserRange``, no supplementary groups, so no capabilities, and a private IPC namespace;
/// under a person's daemon, a user namespace per app gives it the private IPC namespace and
/// noexec directories without privilege.
package struct AppSandbox: Sendable {
    /// The Landlock in force, or `nil`.
    package let landlock: Landlock?
    /// The ids apps get, or `nil` when they keep the daemon's.
    package let appUsers: AppUserRange?
    /// The most processes each app may have (RLIMIT_NPROC, on its own uid or in its own user
    /// namespace), or `nil` when apps keep the daemon's uid with neither, where the count would
    /// be the person's.
    package var processLimit: Int? = nil
    /// The most data memory each process of an app may map (RLIMIT_DATA), or `nil` when the
    /// daemon is built with a sanitizer: its apps are too, and their shadow memory (terabytes
    /// reserved) counts as data.
    package var memoryLimit: Int? = nil
    /// Whether apps get a /proc that shows only their processes: under uids of their own, a
    /// procfs with `hidepid=invisible`; in user namespaces of their own, a PID namespace each.
    package var privateProc = false
    /// Whether apps that keep the daemon's uid get a user namespace of their own, for a
    /// private IPC namespace and noexec data and temporary directories.
    package var ownUserNamespace = false
    /// The session bus sockets covered in each app's user namespace (apps that keep the
    /// daemon's uid would be admitted to the person's bus).
    package var hiddenPaths: [String] = []
    /// Whether apps get the seccomp filter that refuses `clone3` (every sandboxed app).
    package var refusesClone3 = false
    /// Whether apps run no code but their files' (docs/SANDBOX.md): unless one declares a
    /// JIT (`BGAllowsJIT`), its memory is never writable and executable and seccomp refuses
    /// the ways around that. Needs PR_SET_MDWE (Linux 6.3).
    package var refusesDynamicCode = false
    /// Whether seccomp refuses `ptrace` to apps: not under a sanitizer, whose LeakSanitizer
    /// traces the app's own threads at exit.
    package var refusesPtrace = false
    /// What `bgctl status` shows.
    package let summary: String

    /// No sandbox: what `--sandbox off` gives.
    package static let off = AppSandbox(landlock: nil, appUsers: nil, summary: "off (--sandbox off)")

    /// The sandbox `choice` gives on this system, logging what is in force and why it is weaker.
    /// - Parameters:
    ///   - choice: `--sandbox`.
    ///   - processLimit: `--app-process-limit`, in force where apps get uids or user namespaces of
    ///     their own.
    ///   - memoryLimit: `--app-memory-limit`, per process in every mode.
    ///   - sharedPidNamespace: `--shared-pid-namespace`: apps of a person's daemon stay in the
    ///     person's PID namespace.
    ///   - logger: Where the summary and any weakness are logged.
    package static func make(
        _ choice: SandboxChoice, processLimit: Int = AppLimits.defaultProcesses,
        memoryLimit: Int = AppLimits.defaultMemory, sharedPidNamespace: Bool = false, logger: Logger
    ) -> AppSandbox {
        guard choice == .auto else {
            logger.warning("apps run without a sandbox (--sandbox off)")
            return .off
        }
        var parts: [String] = []
        var landlock: Landlock?
        switch Landlock.probe() {
        case .success(let found):
            landlock = found
            parts.append("landlock v\(found.abi)")
            if found.abi < 6 {
                parts.append("signals and abstract sockets not scoped (Landlock ABI 6 needed)")
            }
        case .failure(let error):
            logger.warning("no Landlock file-system sandbox for apps: \(error.reason)")
            parts.append("no landlock (\(error.reason))")
        }
        var privateProc = false
        var ownUserNamespace = false
        var hiddenPaths: [String] = []
        let range: AppUserRange? = geteuid() == 0 ? .standard : nil
        if let range {
            parts.append("uid per app \(range.description)")
            parts.append("IPC namespace per app")
            let probe = bg_probe_private_proc()
            privateProc = probe == 0
            if privateProc {
                parts.append("private /proc (hidepid=invisible)")
            } else {
                let reason = String(cString: strerror(-probe))
                logger.warning("apps share /proc: a private one could not be mounted: \(reason)")
                parts.append("shared /proc (\(reason))")
            }
            parts.append("at most \(processLimit) processes per app")
        } else {
            parts.append("apps keep uid \(geteuid()) (the daemon is not root)")
            let probe = bg_probe_user_namespace()
            ownUserNamespace = probe == 0
            if ownUserNamespace {
                parts.append("user namespace per app: IPC namespace per app, data and temporary directories noexec")
                let pidProbe = sharedPidNamespace ? 0 : bg_probe_pid_namespace()
                privateProc = pidProbe == 0 && !sharedPidNamespace
                if sharedPidNamespace {
                    parts.append("shared /proc (--shared-pid-namespace)")
                } else if privateProc {
                    parts.append("private /proc (PID namespace per app)")
                } else {
                    let reason = String(cString: strerror(-pidProbe))
                    logger.warning("apps share /proc: no PID namespace with a procfs of its own: \(reason)")
                    parts.append("shared /proc (\(reason))")
                }
                parts.append("at most \(processLimit) processes per app")
                hiddenPaths = SessionBusSockets.paths(in: ProcessInfo.processInfo.environment)
                parts.append(
                    hiddenPaths.isEmpty
                        ? "no session bus socket to hide"
                        : "session bus out of reach (\(hiddenPaths.joined(separator: ", ")))")
            } else {
                let reason = String(cString: strerror(-probe))
                logger.warning("apps share IPC and may run native code they write: no user namespace: \(reason)")
                parts.append("IPC shared (no user namespace: \(reason))")
            }
        }
        let sanitized = Self.isSanitized
        if sanitized {
            parts.append("no memory limit per process (a sanitized build: shadow memory counts as data)")
        } else {
            parts.append("at most \(memoryLimit >> 20) MiB of data per process")
        }
        parts.append("no_new_privs")
        // clone3 alone can start a process in another cgroup (CLONE_INTO_CGROUP) without
        // opening a file Landlock could refuse; seccomp cannot read its arguments, so it goes.
        parts.append("clone3 refused (seccomp)")
        let mdwe = bg_probe_memory_deny_write_execute()
        // Memory alone is not the claim: code written to a file is refused by Landlock (execve)
        // and the noexec directories (mmap), and /proc/self/mem, which writes through page
        // protections, by Landlock's read-only /proc.
        let filesHeld = landlock != nil && ((range != nil && privateProc) || ownUserNamespace)
        if mdwe == 0 && filesHeld {
            parts.append(
                "dynamic code refused (no writable-executable memory, executable shared memory, memfd, userfaultfd or SHM_EXEC)"
            )
        } else if mdwe == 0 {
            logger.warning("apps may run code they write to files: no Landlock or no noexec directories")
            parts.append(
                "writable-executable memory refused, but code written to files may load (no Landlock or noexec)")
        } else {
            let reason = String(cString: strerror(-mdwe))
            logger.warning("apps may run code they write to memory: PR_SET_MDWE (Linux 6.3) is missing: \(reason)")
            parts.append("dynamic code allowed (no PR_SET_MDWE: \(reason))")
        }
        parts.append(sanitized ? "ptrace allowed (a sanitized build: LeakSanitizer traces)" : "ptrace refused")
        let sandbox = AppSandbox(
            landlock: landlock, appUsers: range, processLimit: range != nil || ownUserNamespace ? processLimit : nil,
            memoryLimit: sanitized ? nil : memoryLimit, privateProc: privateProc, ownUserNamespace: ownUserNamespace,
            hiddenPaths: hiddenPaths, refusesClone3: true, refusesDynamicCode: mdwe == 0, refusesPtrace: !sanitized,
            summary: parts.joined(separator: ", "))
        logger.info("app sandbox: \(sandbox.summary)")
        return sandbox
    }

    /// Whether this daemon was built with AddressSanitizer or ThreadSanitizer (their runtimes
    /// are linked in), as the CI's sanitizer runs build it and its apps.
    package static let isSanitized: Bool = ["__asan_init", "__tsan_init"].contains { (name: String) in
        dlsym(nil, name) != nil
    }

    /// Warns about `paths` and the directories above them that apps under uids of their own
    /// cannot pass through (a root daemon's default state directory under a 0700 /root):
    /// they are not the daemon's to change, but apps will not reach their bundles, their data
    /// or the audio socket.
    package func warnIfUnreachable(_ paths: [String], logger: Logger) {
        guard appUsers != nil else { return }
        var warned: Set<String> = []
        for path in paths {
            var directory = path
            while !directory.isEmpty && directory != "/" {
                var info = stat()
                if stat(directory, &info) == 0 && info.st_mode & 0o001 == 0 && warned.insert(directory).inserted {
                    logger.warning(
                        "apps, which run under uids of their own, cannot pass through \(directory) (mode 0\(String(info.st_mode & 0o7777, radix: 8))), which they need for \(path); choose directories elsewhere, or chmod o+x \(directory)"
                    )
                }
                directory = (directory as NSString).deletingLastPathComponent
            }
        }
    }

    /// The rule for directories the daemon creates on the way to what apps must reach (the
    /// socket directory, the state directory, the data directories' parent): `0711` when apps
    /// run under uids of their own, so they can pass through without listing; else `0700`.
    package var directoryMode: UInt32 { appUsers == nil ? 0o700 : 0o711 }
}
