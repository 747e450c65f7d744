import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import CSandbox
import Foundation
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

#if canImport(Glibc)
    import Glibc
#endif

/// The app sandbox against a hostile Python app: it tries what issue 10 lists, and the test
/// looks at the real state afterwards (file contents, cgroup membership, CPU, the process's
/// uid and environment), not at what the app says.
@Suite("App sandbox", .timeLimit(.minutes(5)), .tearsDown)
struct SandboxTests {
    static let hostileID = "org.backgrounder.tests.hostile"
    static let victimID = "org.backgrounder.tests.victim"
    static let canary = "BACKGROUNDER_TEST_CANARY"
    static let landlock = bg_landlock_abi() > 0
    static let isRoot = geteuid() == 0

    /// Python functions for attacks every mode must hold, each run by `attempt` (they need
    /// `os`, `signal` and `data`): `hoard_shared_memory` makes a 64 MiB SysV segment nobody
    /// removes (key 0x42474B21); `load_native_code` and `run_through_loader` map native code
    /// the app wrote into its data directory executable, by `dlopen` and by `ld.so`;
    /// `fork_bomb` forks children that wait for ever until fork fails (or 200 of them);
    /// `run_code_from_memfd`, `run_code_from_writable_memory` and `run_code_from_shared_memory`
    /// run native code that exists only in memory, each leaving one of ``dynamicCodeMarkers``
    /// in its data directory when the code ran; `trace_a_child` says whether it could ptrace
    /// its own child (the kernel's `TracerPid`).
    static let attacksEveryModeHolds = #"""
        def hoard_shared_memory():
            # 64 MiB of SysV shared memory, touched and never removed: in the daemon's IPC
            # namespace it would outlive a force quit until reboot.
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.shmat.restype = ctypes.c_void_p
            shmid = libc.shmget(0x42474B21, 64 << 20, 0o1000 | 0o666)
            if shmid < 0:
                raise OSError(ctypes.get_errno(), "shmget")
            address = libc.shmat(shmid, None, 0)
            ctypes.memset(address, 0x5A, 64 << 20)
            return "segment %d" % shmid

        def load_native_code():
            # A copy of a system library in its own directory, loaded: mapped executable.
            import ctypes, shutil
            source = [p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6",
                                  "/usr/lib/x86_64-linux-gnu/libm.so.6", "/lib64/libm.so.6") if os.path.exists(p)][0]
            copy = os.path.join(data, "libcopy.so")
            shutil.copy(source, copy)
            ctypes.CDLL(copy)
            return "loaded " + copy

        def run_through_loader():
            # A copy of /bin/true in its own directory, run by the dynamic loader, not execve.
            import shutil, subprocess
            loader = [p for p in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1") if os.path.exists(p)][0]
            copy = os.path.join(data, "true-copy")
            shutil.copy("/bin/true", copy)
            result = subprocess.run([loader, copy], capture_output=True)
            if result.returncode != 0:
                raise OSError("%s exited %d: %s" % (loader, result.returncode, result.stderr.decode().strip()))
            return "ran " + copy

        def _machine_code():
            # Returns 42: mov eax, 42; ret (x86-64), or mov w0, #42; ret (arm64).
            import platform
            return bytes.fromhex("b82a000000c3" if platform.machine() == "x86_64" else "40058052c0035fd6")

        def _call(address):
            import ctypes
            return ctypes.CFUNCTYPE(ctypes.c_int)(address)()

        def _mark_if(result, marker):
            if result == 42:
                open(os.path.join(data, marker), "w").close()
            return "returned %d" % result

        def run_code_from_memfd():
            # A copy of touch in a memfd, run by execve of /proc/self/fd/N: it exists in no
            # directory, so neither mount flags nor Landlock see it. touch leaves the marker.
            fd = os.memfd_create("payload", 0)
            with open("/usr/bin/touch", "rb") as source:
                os.write(fd, source.read())
            child = os.fork()
            if child == 0:
                try:
                    os.execv("/proc/self/fd/%d" % fd, ["touch", os.path.join(data, "memfd-ran")])
                finally:
                    os._exit(127)
            _, status = os.waitpid(child, 0)
            return "exited %d" % os.waitstatus_to_exitcode(status)

        def run_code_from_writable_memory():
            # Machine code written into memory mapped writable and executable, then called.
            import ctypes, mmap
            region = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
            region.write(_machine_code())
            return _mark_if(_call(ctypes.addressof(ctypes.c_char.from_buffer(region))), "memory-ran")

        def run_code_from_shared_memory():
            # The same through two views of one SysV segment, one writable, one executable.
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.shmat.restype = ctypes.c_void_p
            shmid = libc.shmget(0, 4096, 0o1000 | 0o700)  # IPC_CREAT; x: SHM_EXEC asks for it
            if shmid < 0:
                raise OSError(ctypes.get_errno(), "shmget")
            writable = libc.shmat(shmid, None, 0)
            executable = libc.shmat(shmid, None, 0o10000 | 0o100000)  # SHM_RDONLY | SHM_EXEC
            error = ctypes.get_errno()
            libc.shmctl(shmid, 0, None)  # IPC_RMID
            if executable in (None, ctypes.c_void_p(-1).value):
                raise OSError(error, "shmat(SHM_EXEC)")
            ctypes.memmove(writable, _machine_code(), len(_machine_code()))
            return _mark_if(_call(executable), "shared-ran")

        def _shared_view_run(prot, marker, personality=None):
            # Shared memory mapped with `prot`, made writable in a forked child's own view: the
            # child writes the code, the parent calls it, and neither view ever gains execute
            # permission (which is all MDWE refuses).
            import ctypes, mmap
            libc = ctypes.CDLL(None, use_errno=True)
            libc.mmap.restype = ctypes.c_void_p
            libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
            if personality is not None and libc.personality(personality) == -1:
                raise OSError(ctypes.get_errno(), "personality")
            address = libc.mmap(None, 4096, prot, mmap.MAP_SHARED | mmap.MAP_ANONYMOUS, -1, 0)
            if address in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), "mmap(MAP_SHARED)")
            child = os.fork()
            if child == 0:
                libc.personality(0)
                made = libc.mprotect(ctypes.c_void_p(address), 4096, mmap.PROT_READ | mmap.PROT_WRITE) == 0
                if made:
                    ctypes.memmove(address, _machine_code(), len(_machine_code()))
                os._exit(0 if made else 1)
            _, status = os.waitpid(child, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                raise OSError("the child could not make its view writable")
            return _mark_if(_call(address), marker)

        def run_code_from_a_shared_mapping():
            import mmap
            return _shared_view_run(mmap.PROT_READ | mmap.PROT_EXEC, "shared-mapping-ran")

        def run_code_through_read_implies_exec():
            # The same, with the execute permission the READ_IMPLIES_EXEC personality adds.
            import mmap
            return _shared_view_run(mmap.PROT_READ, "read-implies-exec-ran", personality=0x0400000)

        def trace_a_child():
            # A tracer writes into its tracee's code whatever the pages' protection.
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            child = os.fork()
            if child == 0:
                while True:
                    signal.pause()
            try:
                if libc.ptrace(0x4206, child, None, None) != 0:  # PTRACE_SEIZE
                    raise OSError(ctypes.get_errno(), "ptrace")
                tracer = [l.split()[1] for l in open("/proc/%d/status" % child) if l.startswith("TracerPid:")][0]
                return "traced by %s" % tracer
            finally:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)

        def fork_bomb():
            # Children that wait for ever, until fork fails (or 200: the limit must come first).
            forked = 0
            while forked < 200:
                try:
                    child = os.fork()
                except OSError as error:
                    return "forked %d, then %s" % (forked, error.strerror)
                if child == 0:
                    try:
                        while True:
                            signal.pause()
                    finally:
                        os._exit(0)
                forked += 1
            return "forked %d" % forked
        """#

    /// What the attacks on dynamic code leave in the data directory when their code ran.
    static let dynamicCodeMarkers = [
        "memfd-ran", "memory-ran", "shared-ran", "shared-mapping-ran", "read-implies-exec-ran",
    ]
    /// The attacks on dynamic code, as findings name them.
    static let dynamicCodeAttacks = [
        "run code from a memfd", "run code from writable memory", "run code from shared memory",
        "run code from a shared mapping", "run code through READ_IMPLIES_EXEC", "trace a child",
    ]
    /// Python lines that try every dynamic-code attack through `attempt`.
    static let attemptDynamicCode = """
        attempt("run code from a memfd", run_code_from_memfd)
        attempt("run code from writable memory", run_code_from_writable_memory)
        attempt("run code from shared memory", run_code_from_shared_memory)
        attempt("run code from a shared mapping", run_code_from_a_shared_mapping)
        attempt("run code through READ_IMPLIES_EXEC", run_code_through_read_implies_exec)
        attempt("trace a child", trace_a_child)
        """

    /// Expects that no dynamic-code attack ran its code (by the markers) and each was refused.
    static func expectNoDynamicCode(findings: [String: Any], dataDirectory: String) {
        for marker in dynamicCodeMarkers {
            #expect(!FileManager.default.fileExists(atPath: dataDirectory + "/" + marker), "\(marker): \(findings)")
        }
        // A sanitized build's apps may trace: LeakSanitizer does, at exit.
        for attack in dynamicCodeAttacks where !(AppSandbox.isSanitized && attack == "trace a child") {
            #expect(
                (findings[attack] as? String)?.hasPrefix("refused") == true, "\(attack): \(findings[attack] ?? "-")")
        }
    }

    /// Tries every attack, writes what happened to findings.json in its data directory,
    /// then spins, so a suspension that does not hold shows as CPU time.
    static let hostileScript = #"""
        #!/usr/bin/python3
        import json, os, signal

        data = os.environ.get("BACKGROUNDER_DATA_DIR", "")
        state = os.path.dirname(os.path.dirname(data))
        bundles = os.path.dirname(os.getcwd())
        findings = {"uid": os.getuid(), "environment": sorted(os.environ)}

        def attempt(name, action):
            try:
                findings[name] = action() or "done"
            except Exception as error:
                findings[name] = "refused: %s" % error

        def steal(path, copy):
            with open(path, "rb") as source:
                content = source.read()
            with open(os.path.join(data, copy), "wb") as stolen:
                stolen.write(content)

        def append(path, text):
            with open(path, "a") as target:
                target.write(text)

        def leave_cgroup():
            own = [l[3:] for l in open("/proc/self/cgroup").read().splitlines() if l.startswith("0::")][0]
            mount = [l.split(" - ")[0].split()[4] for l in open("/proc/self/mountinfo") if " - cgroup2 " in l][0]
            results = []
            for target in (os.path.dirname(own), "/"):
                path = mount + target.rstrip("/") + "/cgroup.procs"
                try:
                    with open(path, "w") as procs:
                        procs.write(str(os.getpid()))
                    results.append("moved to " + path)
                except Exception as error:
                    results.append("refused %s: %s" % (path, error))
            return results

        def process_owners():
            # Whose processes /proc shows: with a private /proc, this app's uid alone.
            owners = set()
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        for line in open("/proc/%s/status" % entry):
                            if line.startswith("Uid:"):
                                owners.add(int(line.split()[1]))
                    except OSError:
                        pass
            return sorted(owners)

        def daemon_command_line():
            with open("/proc/%d/cmdline" % os.getppid(), "rb") as source:
                return "read: " + source.read().replace(b"\0", b" ").decode(errors="replace")

        \#(attacksEveryModeHolds)

        victim = os.path.join(state, "data", "org.backgrounder.tests.victim", "secret.txt")
        attempt("read the state database", lambda: steal(os.path.join(state, "backgrounder.sqlite"), "stolen-database"))
        attempt("read another app's data", lambda: steal(victim, "stolen-secret"))
        attempt("write another app's data", lambda: append(victim, "pwned"))
        attempt("rewrite another bundle", lambda: append(os.path.join(bundles, "Victim.bundle", "Info.plist"), "pwned"))
        attempt("leave the cgroup", leave_cgroup)
        attempt("write its data directory", lambda: append(os.path.join(data, "own.txt"), "mine"))
        attempt("hoard shared memory", hoard_shared_memory)
        attempt("list processes", process_owners)
        attempt("load native code from its data directory", load_native_code)
        attempt("run native code through ld.so", run_through_loader)
        attempt("read the daemon's command line", daemon_command_line)
        \#(attemptDynamicCode)
        attempt("fork bomb", fork_bomb)
        attempt("write TMPDIR", lambda: append(os.path.join(os.environ.get("TMPDIR", "/nonexistent"), "tmp.txt"), "mine"))
        with open(os.path.join(data, "findings.tmp"), "w") as out:
            json.dump(findings, out, indent=1)
        os.rename(os.path.join(data, "findings.tmp"), os.path.join(data, "findings.json"))
        print("findings written", flush=True)
        while True:
            pass
        """#

    typealias Running = LifecycleTests.Running

    /// A daemon with the victim and the hostile app, and a canary in its environment.
    static func running(prefix: String, extraArguments: [String] = []) async throws -> Running {
        try await Running(
            prefix: prefix, extraArguments: extraArguments, environment: [canary: "secret-canary"]
        ) { bundles in
            try TestAppBundles.make("Victim", into: bundles)
            try PythonAppBundles.make("Hostile", script: hostileScript, prelude: false, into: bundles)
        }
    }

    /// The `0::` line of a process's /proc/PID/cgroup.
    static func cgroup(of pid: Int32) -> String? {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) }
    }

    static func usage(ofCgroup path: String) -> Int? {
        let text = (try? String(contentsOfFile: path + "/cpu.stat", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix("usage_usec ") }
            .flatMap { Int($0.split(separator: " ")[1]) }
    }

    static func owner(_ path: String) -> UInt32? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_uid : nil
    }

    @Test(
        "a hostile app reads and writes nothing outside its own directories, stays in its cgroup and frozen, and sees none of the daemon's environment",
        .enabled(if: isRoot && landlock, "needs a root daemon and a kernel with Landlock")
    )
    func hostileApp() async throws {
        let running = try await Self.running(prefix: "sbx", extraArguments: ["--app-process-limit", "40"])
        atTeardown { await running.tearDown() }
        let daemon = running.daemon
        let status = try daemon.status()
        #expect(status.sandbox?.hasPrefix("landlock v") == true, "status: \(status.sandbox ?? "-")")
        #expect(status.sandbox?.contains("uid per app") == true)

        // Another app's data, readable and writable by anyone as far as file modes go:
        // only the sandbox stands in the way.
        let victimData = running.dataDirectory(Self.victimID)
        try FileManager.default.createDirectory(
            atPath: victimData, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let secret = victimData + "/secret.txt"
        try "victim secret\n".write(toFile: secret, atomically: false, encoding: .utf8)
        chmod(secret, 0o666)
        let plist = running.bundles + "/Victim.bundle/Info.plist"
        let plistBefore = try Data(contentsOf: URL(fileURLWithPath: plist))

        guard case .done = try daemon.client().request(.open(OpenApp(bundle: BundleID(Self.hostileID)))).body
        else {
            Issue.record("the hostile app did not launch: \(daemon.log)")
            return
        }
        let data = running.dataDirectory(Self.hostileID)
        let findingsPath = data + "/findings.json"
        let wrote = await waitUntil { FileManager.default.fileExists(atPath: findingsPath) }
        let appLog =
            AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(Self.hostileID).log")
        try #require(wrote, "no findings; app log: \(appLog ?? "-")")
        let findings = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: findingsPath)))
                as? [String: Any])
        let pid = try #require(try running.app(Self.hostileID).pid)

        // Files: nothing read, nothing changed.
        #expect(!FileManager.default.fileExists(atPath: data + "/stolen-database"), "\(findings)")
        #expect(!FileManager.default.fileExists(atPath: data + "/stolen-secret"), "\(findings)")
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "victim secret\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: plist)) == plistBefore)
        #expect((findings["read the state database"] as? String)?.hasPrefix("refused") == true)

        // Identity: not root, and its directories are its own.
        let statusText = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let uidLine = try #require(statusText.split(separator: "\n").first { $0.hasPrefix("Uid:") })
        let uids = uidLine.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().compactMap { UInt32($0) }
        #expect(uids.count == 4 && !uids.contains(0), "\(uidLine)")
        let uid = try #require(uids.first)
        #expect(AppUserRange.standard.contains(uid))
        #expect(findings["uid"] as? Int == Int(uid))
        #expect(Self.owner(data) == uid)
        #expect(Self.owner(data + "/own.txt") == uid, "\(findings)")
        #expect(Self.owner(daemon.stateDirectory + "/tmp/\(Self.hostileID)/tmp.txt") == uid, "\(findings)")

        // Environment, from the kernel's copy: only the documented variables.
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
        let names = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self).prefix { $0 != "=" } }
        #expect(!names.contains(Substring(Self.canary)))
        #expect(Set(names.map(String.init)).isSubset(of: Set(AppEnvironment.names)), "\(names)")
        #expect(!names.isEmpty)

        // Still in its own cgroup, whatever it wrote where.
        let cgroup = try #require(Self.cgroup(of: pid))
        #expect(cgroup.hasSuffix("/app-" + Self.hostileID), "\(cgroup); \(findings["leave the cgroup"] ?? "-")")
        let mount = try #require(LifecycleTests.cgroup2Mount())
        let parentProcs = Self.kernelText(mount + (cgroup as NSString).deletingLastPathComponent + "/cgroup.procs")
        #expect(!parentProcs.split(separator: "\n").contains(Substring(String(pid))))

        // It spins in the foreground; in the background it is frozen and its CPU time stays flat.
        let cgroupPath = mount + cgroup
        let spinning = try #require(Self.usage(ofCgroup: cgroupPath))
        #expect(
            await waitUntil(timeout: .seconds(30)) { (Self.usage(ofCgroup: cgroupPath) ?? 0) > spinning },
            "the app should be using CPU")
        _ = try daemon.client().request(.home)
        let suspended = await waitUntil { (try? running.app(Self.hostileID).state) == .suspended }
        #expect(suspended, "\(daemon.log)")
        #expect(await SuspensionEvidence.becomeFrozen(pid), "cgroup.events does not say frozen 1")
        let frozenAt = try #require(Self.usage(ofCgroup: cgroupPath))
        try await Task.sleep(for: .seconds(2))
        #expect(Self.usage(ofCgroup: cgroupPath) == frozenAt, "a suspended app uses no CPU")
        #expect(Self.cgroup(of: pid) == cgroup)

        // Processes: the fork bomb stopped at the limit, counted in the app's cgroup.
        let bomb = findings["fork bomb"] as? String ?? ""
        #expect(bomb.hasSuffix("Resource temporarily unavailable"), "\(bomb)")
        let processes = try String(contentsOfFile: cgroupPath + "/cgroup.procs", encoding: .utf8)
        #expect((1...40).contains(processes.split(separator: "\n").count), "\(processes)")
        #expect(status.sandbox?.contains("at most 40 processes per app") == true)

        // Processes: /proc shows the app its own alone; the daemon's command line is not there.
        #expect(status.sandbox?.contains("private /proc (hidepid=invisible)") == true, "\(status.sandbox ?? "-")")
        #expect(findings["list processes"] as? [Int] == [Int(uid)], "\(findings)")
        #expect((findings["read the daemon's command line"] as? String)?.hasPrefix("refused") == true, "\(findings)")

        // Native code it wrote: its directories are bound noexec in its mount namespace, so
        // neither dlopen nor ld.so can map it executable (execve is Landlock's to refuse).
        for attempt in ["load native code from its data directory", "run native code through ld.so"] {
            #expect(
                (findings[attempt] as? String)?.hasPrefix("refused") == true, "\(attempt): \(findings[attempt] ?? "-")")
        }

        // Code that exists only in memory: nothing of it ran, and no child was traced.
        #expect(status.sandbox?.contains("dynamic code refused") == true, "\(status.sandbox ?? "-")")
        #expect(
            status.sandbox?.contains(AppSandbox.isSanitized ? "ptrace allowed" : "ptrace refused") == true,
            "\(status.sandbox ?? "-")")
        Self.expectNoDynamicCode(findings: findings, dataDirectory: data)

        // Shared memory: made in an IPC namespace of its own, which the daemon's does not see,
        // and which goes with the app's last process.
        #expect((findings["hoard shared memory"] as? String)?.hasPrefix("segment") == true, "\(findings)")
        #expect(status.sandbox?.contains("IPC namespace per app") == true)
        #expect(Self.namespace("ipc", of: pid) != Self.namespace("ipc", of: getpid()))
        #expect(!Self.sharedMemoryKeys().contains(0x4247_4B21))
        _ = try daemon.client().request(.quit(AppReference(bundle: BundleID(Self.hostileID))))
        #expect(await waitUntil { kill(pid, 0) != 0 && errno == ESRCH })
        #expect(!Self.sharedMemoryKeys().contains(0x4247_4B21))

        #expect(daemon.isRunning)
        #expect(try daemon.status().bundles.loaded == 2)
    }

    /// A file of /proc or /sys read to its end: `String(contentsOfFile:)` stops after its first
    /// read, about 4 KB, and a machine with many segments, mounts or processes has more.
    static func kernelText(_ path: String) -> String {
        let bytes = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readToEnd()) ?? nil
        return String(decoding: bytes ?? Data(), as: UTF8.self)
    }

    /// The keys of the SysV shared-memory segments this process's IPC namespace holds.
    static func sharedMemoryKeys() -> [Int64] {
        let text = kernelText("/proc/sysvipc/shm")
        return text.split(separator: "\n").dropFirst().compactMap { line in
            line.split(separator: " ").first.flatMap { Int64($0) }
        }
    }

    /// A process's namespace of a kind, as `/proc/PID/ns/KIND` names it (`ipc:[4026531839]`).
    static func namespace(_ kind: String, of pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/ns/\(kind)")
    }

    @Test("--sandbox off says so in status, and the app keeps the daemon's uid")
    func sandboxOff() async throws {
        let running = try await Self.running(prefix: "sbo", extraArguments: ["--sandbox", "off"])
        atTeardown { await running.tearDown() }
        #expect(try running.daemon.status().sandbox == "off (--sandbox off)")
        _ = try running.daemon.client().request(.open(OpenApp(bundle: BundleID(Self.victimID))))
        let pid = try #require(try running.app(Self.victimID).pid)
        #expect(Self.owner("/proc/\(pid)") == geteuid())
    }

    @Test(
        "a bundle its app's uid cannot reach fails to launch naming the step and the error; the daemon warns at start and keeps serving",
        .enabled(if: isRoot, "apps change uid only under a root daemon")
    )
    func unreachableBundle() async throws {
        let directory = try TemporaryDirectory(prefix: "sbr")
        atTeardown { directory.remove() }
        let hidden = directory.appending("hidden")
        try FileManager.default.createDirectory(atPath: hidden, withIntermediateDirectories: false)
        chmod(hidden, 0o700)
        let bundles = hidden + "/bundles"
        try TestAppBundles.make("Victim", into: bundles)
        let daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        atTeardown { await daemon.stop() }
        #expect(daemon.log.contains("cannot pass through \(hidden) (mode 0700)"), "\(daemon.log)")
        let reply = try daemon.client().request(.open(OpenApp(bundle: BundleID(Self.victimID)))).body
        guard case .error(let error) = reply else {
            Issue.record("expected an error, got \(reply)")
            return
        }
        #expect(error.message.contains("cannot start: chdir: Permission denied"), "\(error.message)")
        guard case .apps(let list) = try daemon.client().request(.ps).body else {
            Issue.record("no ps")
            return
        }
        #expect(list.apps.first { $0.id.rawValue == Self.victimID }?.pid == nil)
        #expect(try daemon.status().bundles.loaded == 1)
    }

    @Test("an app that allocates past --app-memory-limit gets MemoryError; the kernel shows it never held the memory")
    func memoryLimit() async throws {
        let hogID = "org.backgrounder.tests.hog"
        // 256 MiB, every page touched, against a 64 MiB limit; then it says what happened
        // and waits, so the test can read its peak from the kernel.
        let script = #"""
            #!/usr/bin/python3
            import time
            try:
                hoard = bytearray(256 << 20)
                for offset in range(0, len(hoard), 4096):
                    hoard[offset] = 1
                print("hoarded 256 MiB", flush=True)
            except MemoryError:
                print("refused: MemoryError", flush=True)
            time.sleep(600)
            """#
        let running = try await Running(prefix: "hog", extraArguments: ["--app-memory-limit", "64M"]) { bundles in
            try PythonAppBundles.make("Hog", script: script, prelude: false, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let status = try running.daemon.status()
        guard !AppSandbox.isSanitized else {
            // A sanitized daemon's apps are sanitized too: their shadow memory counts as data.
            #expect(status.sandbox?.contains("no memory limit per process (a sanitized build") == true)
            return
        }
        #expect(status.sandbox?.contains("at most 64 MiB of data per process") == true, "\(status.sandbox ?? "-")")
        _ = try running.request(.open(OpenApp(bundle: BundleID(hogID))))
        #expect(await waitUntil { running.appLog(hogID).contains("refused: MemoryError") }, "\(running.appLog(hogID))")
        let pid = try #require(try running.app(hogID).pid)
        let kernel = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(kernel.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }, "\(kernel)")
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let peakKiB = try #require(fields.count > 1 ? Int(fields[1]) : nil, "\(line)")
        #expect(peakKiB < 64 << 10, "its resident peak was \(peakKiB) KiB")
        #expect(running.daemon.isRunning)
    }

    @Test(
        "an app that declares BGAllowsJIT runs code it writes to memory; beside it, one that does not cannot",
        .enabled(if: Self.landlock, "needs a kernel with Landlock (the sandbox is all or nothing here)")
    )
    func jitIsDeclared() async throws {
        // The same attacks in two apps, the one difference their Info.plist: the control
        // shows the attacks work, so the refusal beside it is the sandbox's doing.
        let script = #"""
            #!/usr/bin/python3
            import json, os, signal, time
            data = os.environ["BACKGROUNDER_DATA_DIR"]
            findings = {}

            def attempt(name, action):
                try:
                    findings[name] = action() or "done"
                except Exception as error:
                    findings[name] = "refused: %s" % error

            \#(Self.attacksEveryModeHolds)
            attempt("run code from a memfd", run_code_from_memfd)
            attempt("run code from writable memory", run_code_from_writable_memory)
            attempt("run code from shared memory", run_code_from_shared_memory)
            attempt("run code from a shared mapping", run_code_from_a_shared_mapping)
            attempt("run code through READ_IMPLIES_EXEC", run_code_through_read_implies_exec)
            with open(os.path.join(data, "findings.tmp"), "w") as out:
                json.dump(findings, out)
            os.rename(os.path.join(data, "findings.tmp"), os.path.join(data, "findings.json"))
            time.sleep(600)
            """#
        let running = try await Running(prefix: "jit") { bundles in
            _ = try PythonAppBundles.make(
                "Jitter", script: script, prelude: false, extraPlist: "<key>BGAllowsJIT</key><true/>", into: bundles)
            _ = try PythonAppBundles.make("Plain", script: script, prelude: false, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let status = try running.daemon.status()
        try #require(status.sandbox?.contains("dynamic code refused") == true, "\(status.sandbox ?? "-")")
        var findings: [String: [String: Any]] = [:]
        // The plain app first: what its launch sets for the app alone (no writable-executable
        // memory is the process's memory's own flag, inherited through fork and exec) must not
        // reach the daemon and, through it, the next app.
        for name in ["plain", "jitter"] {
            let id = "org.backgrounder.tests.\(name)"
            _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
            let path = running.dataDirectory(id) + "/findings.json"
            #expect(await waitUntil { FileManager.default.fileExists(atPath: path) }, "\(running.appLog(id))")
            findings[name] =
                (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))))
                as? [String: Any]
        }
        let jitter = running.dataDirectory("org.backgrounder.tests.jitter")
        for marker in Self.dynamicCodeMarkers {
            #expect(
                FileManager.default.fileExists(atPath: jitter + "/" + marker), "\(marker): \(findings["jitter"] ?? [:])"
            )
            #expect(
                !FileManager.default.fileExists(
                    atPath: running.dataDirectory("org.backgrounder.tests.plain") + "/" + marker),
                "\(marker): \(findings["plain"] ?? [:])")
        }
        #expect(running.daemon.isRunning)
    }

    @Test("app uids are distinct per bundle and the same after the store is reopened")
    func appUsersPersist() throws {
        let directory = try TemporaryDirectory(prefix: "sbu")
        atTeardown { directory.remove() }
        let range = AppUserRange(first: 5000, last: 5002)
        let (first, second) = try {
            let store = try StateStore(directory: directory.appending("state"))
            return (
                try store.appUser(for: "org.example.a", in: range) { _ in false },
                try store.appUser(for: "org.example.b", in: range) { $0 == 5001 }
            )
        }()
        #expect(first == 5000)
        #expect(second == 5002)
        let reopened = try StateStore(directory: directory.appending("state"))
        #expect(try reopened.appUser(for: "org.example.b", in: range) { _ in false } == 5002)
        #expect(try reopened.appUser(for: "org.example.a", in: range) { _ in false } == 5000)
        #expect(throws: DaemonError.self) { try reopened.appUser(for: "org.example.c", in: range) { $0 == 5001 } }
    }

    @Test("an existing state directory open to others is refused, named with its mode, and left as it was")
    func refusesOpenStateDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "sbd")
        atTeardown { directory.remove() }
        let state = directory.appending("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        chmod(state, 0o775)
        let daemon = try ChildProcess(
            Locations.product("backgrounderd"),
            [
                "--socket", directory.appending("run/d.sock"), "--state-dir", state, "--bundles",
                directory.appending("b"),
            ],
            logPath: directory.appending("daemon.log")
        )
        #expect(await daemon.waitForExit(timeout: .seconds(20)))
        #expect(daemon.terminationStatus != 0)
        #expect(daemon.output.contains(state) && daemon.output.contains("mode 0775"), "\(daemon.output)")
        var info = stat()
        stat(state, &info)
        #expect(info.st_mode & 0o7777 == 0o775)
    }
}
