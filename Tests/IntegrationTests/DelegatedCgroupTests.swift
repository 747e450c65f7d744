import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A person's daemon in a cgroup delegated to the person (as systemd's `Delegate=yes` gives a
/// user service): it suspends with the freezer without root, and every cgroup of the subtree
/// is writable by the person's uid, which the apps share. Judged by where the kernel says each
/// of the app's processes is, and by what is left of them after `bgctl quit`.
@Suite("A delegated cgroup", .timeLimit(.minutes(5)), .tearsDown)
struct DelegatedCgroupTests {
    /// The uid the daemon and its apps run as.
    static let uid: UInt32 = 54_326

    /// Asks the kernel, by clone3's CLONE_INTO_CGROUP, to start a spinning child in the
    /// daemon's own cgroup, two levels above the app's; reports what it got.
    static let escaper = #"""
        import ctypes, signal, struct
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        own = [l[3:] for l in open("/proc/self/cgroup").read().splitlines() if l.startswith("0::")][0]
        mount = [l.split(" - ")[0].split()[4] for l in open("/proc/self/mountinfo") if " - cgroup2 " in l][0]
        target = mount + os.path.dirname(os.path.dirname(own))
        report("target", target)
        directory = os.open(target, os.O_PATH | os.O_DIRECTORY)
        CLONE_INTO_CGROUP = 0x200000000
        # struct clone_args, version 2: flags, pidfd, child_tid, parent_tid, exit_signal,
        # stack, stack_size, tls, set_tid, set_tid_size, cgroup.
        arguments = ctypes.create_string_buffer(
            struct.pack("=11Q", CLONE_INTO_CGROUP, 0, 0, 0, signal.SIGCHLD, 0, 0, 0, 0, 0, directory), 88)
        child = libc.syscall(ctypes.c_long(435), arguments, ctypes.c_size_t(88))
        if child == 0:
            os.execv("/bin/sh", ["/bin/sh", "-c", "while :; do :; done"])
        report("clone3", child if child > 0 else "refused: " + os.strerror(ctypes.get_errno()))
        report("done", True)
        while True:
            time.sleep(3600)
        """#

    @Test(
        "in a delegated cgroup, an app cannot start a process outside its own cgroup with clone3; nothing of it outlives bgctl quit",
        .enabled(if: geteuid() == 0 && DelegatedSubtree.isAvailable, "needs root to delegate a cgroup v2 subtree")
    )
    func clone3IntoAnotherCgroupIsRefused() async throws {
        let directory = try TemporaryDirectory(prefix: "dlg")
        atTeardown { directory.remove() }
        let subtree = try DelegatedSubtree(to: Self.uid)
        atTeardown { await subtree.remove() }
        let bundles = directory.appending("bundles")
        let id = try PythonAppBundles.make(
            "Climber", script: "import signal\n\(PythonAppBundles.checkIn)\n\(Self.escaper)", into: bundles)
        let daemon = try await PersonsDaemon.start(
            as: Self.uid, directory: directory, bundles: bundles, extraArguments: ["--suspension", "cgroup"],
            launcher: subtree.launcher)
        let status = try daemon.status()
        #expect(status.sandbox?.contains("clone3 refused (seccomp)") == true, "\(status.sandbox ?? "-")")

        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        let reportPath = daemon.stateDirectory + "/data/\(id)/report.jsonl"
        func report() -> String { (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "" }
        #expect(await waitUntil { report().contains("\"done\"") }, "\(report())\n\(daemon.log.suffix(2000))")
        let reported = SessionShedTests.reported(report())
        #expect(reported["target"] as? String == subtree.path, "\(report())")

        // Every process of the app's uid but the daemon is in the app's cgroup: none in the
        // daemon's, where the freezer would not reach it and it would count as the person.
        let appCgroup = try #require(SuspensionEvidence.cgroupDirectory(of: Self.lead(of: id, daemon)))
        #expect(appCgroup.hasSuffix("/app-" + id), "\(appCgroup)")
        let strays = UserProcesses.live(of: Self.uid).filter { $0 != daemon.pid }.filter {
            SuspensionEvidence.cgroupDirectory(of: $0) != appCgroup
        }
        #expect(
            strays.isEmpty,
            "outside \(appCgroup): \(strays.map { "\($0) in \(SuspensionEvidence.cgroupDirectory(of: $0) ?? "-")" }); \(report())"
        )
        #expect(
            SandboxTests.kernelText(subtree.path + "/cgroup.procs").split(separator: "\n") == [
                Substring(String(daemon.pid))
            ],
            "the daemon's cgroup holds the daemon alone")

        _ = try daemon.client().request(.quit(AppReference(bundle: BundleID(id))))
        #expect(
            await waitUntil { UserProcesses.live(of: Self.uid) == [daemon.pid] },
            "left after quit: \(UserProcesses.live(of: Self.uid))")
    }

    /// The app's lead process, from `bgctl ps`.
    static func lead(of id: String, _ daemon: DaemonProcess) throws -> Int32 {
        try #require(try SessionShedTests.app(id, of: daemon).pid)
    }
}

/// A cgroup v2 directory the test makes below its own and gives to a uid the way systemd's
/// `Delegate=yes` does (the directory, `cgroup.procs`, `cgroup.threads` and
/// `cgroup.subtree_control` owned by it); the daemon is started inside it (``launcher``).
struct DelegatedSubtree: Sendable {
    let path: String
    let uid: UInt32

    /// Whether this process's cgroup v2 directory can have children made here.
    static var isAvailable: Bool {
        guard let own = SuspensionEvidence.cgroupDirectory(of: getpid()) else { return false }
        return access(own, W_OK) == 0
    }

    init(to uid: UInt32) throws {
        guard let own = SuspensionEvidence.cgroupDirectory(of: getpid()) else {
            throw HarnessError("this process has no cgroup v2 directory")
        }
        path = (own + "/backgrounder-test-delegated-" + UUID().uuidString.prefix(8)).replacingOccurrences(
            of: "//", with: "/")
        self.uid = uid
        guard mkdir(path, 0o755) == 0 else {
            throw HarnessError("cannot make \(path): \(String(cString: strerror(errno)))")
        }
        for file in ["", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control"] {
            guard chown(path + file, uid, uid) == 0 else {
                throw HarnessError("cannot give \(path + file) to \(uid): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Joins the subtree (as root, before dropping to the uid), then execs the rest.
    var launcher: [String] {
        ["/bin/sh", "-c", "echo $$ > '\(path)/cgroup.procs' && exec \"$0\" \"$@\""]
    }

    /// Kills whatever the uid still runs in it and removes it, deepest first.
    func remove() async {
        await UserProcesses.end(of: uid)
        let enumerator = FileManager.default.enumerator(atPath: path)
        var directories: [String] = []
        while let entry = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + entry, isDirectory: &isDirectory),
                isDirectory.boolValue
            {
                directories.append(path + "/" + entry)
            }
        }
        for directory in directories.sorted(by: { $0.count > $1.count }) + [path] { rmdir(directory) }
    }
}
