import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A person's daemon (not root) cannot give apps uids or namespaces of their own with
/// privilege; a user namespace per app gives them a private IPC namespace and noexec data and
/// temporary directories anyway. Judged by the kernel's view from outside the app: the
/// segments the machine's IPC namespace holds, and whether native code the app wrote ran.
@Suite("A person's daemon's sandbox", .timeLimit(.minutes(5)), .tearsDown)
struct PersonDaemonSandboxTests {
    @Test(
        "under a person's daemon, an app's shared memory stays in its own IPC namespace and dies with it, /proc shows its processes alone, native code it wrote does not run, from files or memory, and a fork bomb stops at the limit",
        .enabled(if: geteuid() == 0, "runs the daemon under a uid of its own, as a person's daemon")
    )
    func userNamespaceHoldsIPCAndNativeCode() async throws {
        let uid: UInt32 = 54_324
        let directory = try TemporaryDirectory(prefix: "pds")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        let id = try PythonAppBundles.make(
            "Squatter",
            script: """
                #!/usr/bin/python3
                import json, os, signal, time

                data = os.environ["BACKGROUNDER_DATA_DIR"]
                findings = {"pid": os.getpid()}

                def attempt(name, action):
                    try:
                        findings[name] = action() or "done"
                    except Exception as error:
                        findings[name] = "refused: %s" % error

                \(SandboxTests.attacksEveryModeHolds)

                def command_lines():
                    # Every command line /proc shows: the daemon's and the person's are the
                    # same uid's, and cmdline needs no ptrace access.
                    lines = []
                    for entry in os.listdir("/proc"):
                        if entry.isdigit():
                            try:
                                with open("/proc/%s/cmdline" % entry, "rb") as source:
                                    lines.append(source.read().replace(b"\\0", b" ").decode(errors="replace").strip())
                            except OSError:
                                pass
                    return lines

                def write_data():
                    with open(os.path.join(data, "own.txt"), "w") as own:
                        own.write("mine")

                attempt("hoard shared memory", hoard_shared_memory)
                attempt("load native code from its data directory", load_native_code)
                attempt("run native code through ld.so", run_through_loader)
                attempt("write its data directory", write_data)
                attempt("read command lines", command_lines)
                \(SandboxTests.attemptDynamicCode)
                attempt("fork bomb", fork_bomb)
                with open(os.path.join(data, "findings.tmp"), "w") as out:
                    json.dump(findings, out)
                os.rename(os.path.join(data, "findings.tmp"), os.path.join(data, "findings.json"))
                while True:
                    time.sleep(3600)
                """,
            prelude: false, into: bundles)
        let daemon = try await PersonsDaemon.start(
            as: uid, directory: directory, bundles: bundles, extraArguments: ["--app-process-limit", "40"])
        let sandbox = try daemon.status().sandbox ?? ""
        #expect(sandbox.contains("user namespace per app"), "\(sandbox)")
        #expect(sandbox.contains("at most 40 processes per app"), "\(sandbox)")
        #expect(sandbox.contains("private /proc (PID namespace per app)"), "\(sandbox)")
        #expect(sandbox.contains("dynamic code refused"), "\(sandbox)")
        #expect(sandbox.contains("no data quota (only a root daemon"), "\(sandbox)")

        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        let findingsPath = daemon.stateDirectory + "/data/\(id)/findings.json"
        #expect(
            await waitUntil { FileManager.default.fileExists(atPath: findingsPath) },
            "\(daemon.log.suffix(2000))\n\(AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(id).log") ?? "")"
        )
        let findings =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: findingsPath)))
            as? [String: Any] ?? [:]
        // The daemon's view of its pid: in its own PID namespace the app is pid 1.
        #expect(findings["pid"] as? Int == 1, "\(findings)")
        let pid = try #require(try SessionShedTests.app(id, of: daemon).pid)

        // The control: the app runs, writes its own directory, and made its segment.
        #expect(findings["write its data directory"] as? String == "done", "\(findings)")
        #expect((findings["hoard shared memory"] as? String)?.hasPrefix("segment") == true, "\(findings)")
        // ...in an IPC namespace of its own: the machine's holds no such segment.
        #expect(SandboxTests.namespace("ipc", of: pid) != SandboxTests.namespace("ipc", of: getpid()))
        #expect(!SandboxTests.sharedMemoryKeys().contains(0x4247_4B21))
        // Native code it wrote: its directories are noexec in its mount namespace.
        for attempt in ["load native code from its data directory", "run native code through ld.so"] {
            #expect(
                (findings[attempt] as? String)?.hasPrefix("refused") == true, "\(attempt): \(findings[attempt] ?? "-")")
        }

        // /proc shows the app its own processes alone: no command line but its own (the
        // daemon's, the test's and the person's would be readable in a shared /proc).
        let lines = findings["read command lines"] as? [String] ?? []
        #expect(!lines.isEmpty, "\(findings)")
        #expect(lines.allSatisfy { $0.hasPrefix("/usr/bin/python3") || $0.contains("Squatter") }, "\(lines)")

        // Code that exists only in memory: nothing of it ran, and no child was traced.
        SandboxTests.expectNoDynamicCode(findings: findings, dataDirectory: daemon.stateDirectory + "/data/\(id)")

        // A fork bomb stops at the limit, counted in its user namespace: the test's own
        // processes and the daemon, of the same uid outside it, do not count.
        let bomb = findings["fork bomb"] as? String ?? ""
        #expect(bomb.hasSuffix("Resource temporarily unavailable"), "\(bomb)")
        #expect((1...40).contains(UserProcesses.live(of: uid).count - 1), "\(UserProcesses.live(of: uid))")

        // The app is pid 1 of its namespace, where a SIGTERM it never asked for is dropped:
        // the daemon ends it as SIGTERM would have, not after the grace period.
        _ = try daemon.client().request(.quit(AppReference(bundle: BundleID(id))))
        #expect(await waitUntil { kill(pid, 0) != 0 && errno == ESRCH })
        #expect(!daemon.log.contains("of SIGTERM; killing"), "\(daemon.log.suffix(2000))")
        #expect(
            await waitUntil { UserProcesses.live(of: uid) == [daemon.pid] },
            "left after quit: \(UserProcesses.live(of: uid))")
        #expect(!SandboxTests.sharedMemoryKeys().contains(0x4247_4B21))
        #expect(daemon.isRunning)
    }

    @Test(
        "an app that is pid 1 of its namespace and waits for SIGTERM with sigwait gets it at quit; one that never asked is ended at once",
        .enabled(if: geteuid() == 0, "runs the daemon under a uid of its own, as a person's daemon")
    )
    func terminationInItsOwnNamespace() async throws {
        let uid: UInt32 = 54_329
        let directory = try TemporaryDirectory(prefix: "pdt")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        // Blocks SIGTERM and takes it with sigwait, as sd-event and signalfd users do: the
        // kernel queues a blocked signal, even for a namespace's pid 1.
        let waiter = try PythonAppBundles.make(
            "Waiter",
            script: """
                #!/usr/bin/python3
                import signal, sys, time
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
                print("waiting for SIGTERM", flush=True)
                signal.sigwait({signal.SIGTERM})
                print("SIGTERM taken; saving", flush=True)
                time.sleep(0.3)  # saving: well within the daemon's grace, past an immediate kill
                print("saved; leaving", flush=True)
                sys.exit(0)
                """,
            prelude: false, into: bundles)
        let daemon = try await PersonsDaemon.start(as: uid, directory: directory, bundles: bundles)
        let log = {
            AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(waiter).log") ?? ""
        }
        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(waiter))))
        #expect(await waitUntil { log().contains("waiting for SIGTERM") }, "\(log())")
        let pid = try #require(try SessionShedTests.app(waiter, of: daemon).pid)
        _ = try daemon.client().request(.quit(AppReference(bundle: BundleID(waiter))))
        #expect(await waitUntil { kill(pid, 0) != 0 && errno == ESRCH })
        // It left by itself, on the signal the daemon sent: not killed as one that drops it.
        // Its output reaches the log through the daemon, which may still be writing it.
        #expect(await waitUntil { log().contains("saved; leaving") }, "\(log())\n\(daemon.log.suffix(2000))")
        #expect(!daemon.log.contains("of SIGTERM; killing"), "\(daemon.log.suffix(2000))")
        #expect(daemon.isRunning)
    }
}
