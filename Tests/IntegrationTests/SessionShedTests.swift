import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A person's daemon without the freezer (signals): apps run under the person's uid, so the
/// daemon tells a person from an app by the process, and a child that calls `setsid()`
/// leaves the app's session. Judged by the grant in `bgctl permissions`, not by the replies.
/// With `--shared-pid-namespace`: where each app has a PID namespace of its own, an orphan is
/// its app's pid 1's and dies with it, so these tests hold the daemon to the case where the
/// kernel or a service manager gives no namespace (and read the pids the apps report).
@Suite("Leaving the app's session", .timeLimit(.minutes(5)), .tearsDown)
struct SessionShedTests {
    @Test(
        "under signals, a setsid child of a live app, and one that lost its parent, are no person: no grant; the orphan is ended with the app and reaped",
        .enabled(if: geteuid() == 0, "runs the daemon under a uid of its own, as a person's daemon")
    )
    func setsidChildrenGrantNothing() async throws {
        let uid: UInt32 = 54_322
        let directory = try TemporaryDirectory(prefix: "shed")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        let id = try PythonAppBundles.make(
            "Shedder",
            script: """
                \(PythonAppBundles.checkIn)
                grant = {"class": "AUTHORIZE", "bundle": BUNDLE, "service": "microphone", "level": "granted"}
                child = os.fork()
                if child == 0:
                    # Out of the app's session while the app runs.
                    os.setsid()
                    report("setsid child", public(grant))
                    parent_gone, holding = os.pipe()
                    middle = os.getpid()
                    if os.fork() == 0:
                        # Out again, and left behind: its parent exits now, while the app runs.
                        os.setsid()
                        os.close(holding)
                        os.read(parent_gone, 1)
                        while os.getppid() == middle:
                            time.sleep(0.01)
                        report("orphan", public(grant))
                        report("orphan parent", os.getppid())
                        report("orphan pid", os.getpid())
                        report("done", True)
                        time.sleep(3600)
                    os._exit(0)
                os.waitpid(child, 0)
                while '"done"' not in open(os.path.join(DATA, "report.jsonl")).read():
                    time.sleep(0.05)
                os._exit(0)
                """,
            into: bundles)
        let daemon = try await PersonsDaemon.start(
            as: uid, directory: directory, bundles: bundles,
            extraArguments: ["--suspension", "signals", "--shared-pid-namespace"])
        #expect(try daemon.status().suspension?.contains("the daemon adopts orphans") == true)

        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        let reportPath = daemon.stateDirectory + "/data/\(id)/report.jsonl"
        func report() -> String { (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "" }
        #expect(await waitUntil { report().contains("\"done\"") }, "\(report())\n\(daemon.log.suffix(2000))")

        guard
            case .permissions(let list) = try daemon.client().request(
                .permissions(PermissionsQuery(bundle: BundleID(id)))
            ).body
        else { throw HarnessError("no PERMISSIONS") }
        #expect(list.apps.first?.microphone != .granted, "\(report())")
        #expect(daemon.log.contains("an app's orphan"), "the orphan was refused as one")
        // The orphan was the daemon's child, and it is reaped: no zombie is left with the daemon.
        #expect(report().contains("\"orphan parent\", \"value\": \(daemon.pid)"), "\(report())")
        // It would sleep for an hour; its app has ended, and it goes with it.
        let orphan = Int32(try #require(Self.reported(report())["orphan pid"] as? Int))
        #expect(await waitUntil { kill(orphan, 0) != 0 && errno == ESRCH }, "\(daemon.log.suffix(2000))")
        #expect(
            await waitUntil { Self.zombieChildren(of: daemon.pid).isEmpty }, "\(Self.zombieChildren(of: daemon.pid))")

        // A person still can.
        _ = try daemon.client().request(.authorize(Authorize(bundle: BundleID(id), grant: .microphone(.granted))))
        guard
            case .permissions(let after) = try daemon.client().request(
                .permissions(PermissionsQuery(bundle: BundleID(id)))
            ).body
        else { throw HarnessError("no PERMISSIONS") }
        #expect(after.apps.first?.microphone == .granted)
    }

    @Test(
        "under signals, a setsid child stops with its app and ends with it; one that also lost its parent is ended when the app is suspended",
        .enabled(if: geteuid() == 0, "runs the daemon under a uid of its own, as a person's daemon")
    )
    func setsidChildrenAreContained() async throws {
        let uid: UInt32 = 54_323
        let directory = try TemporaryDirectory(prefix: "shed2")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        let id = try PythonAppBundles.make(
            "Escaper",
            script: """
                \(PythonAppBundles.checkIn)
                report("lead", os.getpid())
                spinner_parent = os.fork()
                if spinner_parent == 0:
                    # Out of the app's session; its child spins, and it waits for that child.
                    os.setsid()
                    spinner = os.fork()
                    if spinner == 0:
                        report("spinner", os.getpid())
                        burn()
                    report("spinner parent", os.getpid())
                    os.waitpid(spinner, 0)
                    os._exit(0)
                stray_parent = os.fork()
                if stray_parent == 0:
                    # Out of the session, then left behind by its parent: nobody's, by family.
                    os.setsid()
                    parent_gone, holding = os.pipe()
                    middle = os.getpid()
                    if os.fork() == 0:
                        os.close(holding)
                        os.read(parent_gone, 1)
                        while os.getppid() == middle:
                            time.sleep(0.01)
                        report("stray", os.getpid())
                        report("stray parent", os.getppid())
                        burn()
                    os._exit(0)
                os.waitpid(stray_parent, 0)
                while True:
                    text = open(os.path.join(DATA, "report.jsonl")).read()
                    if '"spinner parent"' in text and '"stray parent"' in text:
                        break
                    time.sleep(0.05)
                report("ready", True)
                while True:
                    time.sleep(3600)
                """,
            into: bundles)
        let daemon = try await PersonsDaemon.start(
            as: uid, directory: directory, bundles: bundles,
            extraArguments: ["--suspension", "signals", "--shared-pid-namespace"])
        #expect(try daemon.status().suspension?.contains("ended when any app is suspended or ends") == true)

        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        let reportPath = daemon.stateDirectory + "/data/\(id)/report.jsonl"
        func report() -> String { (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "" }
        #expect(await waitUntil { report().contains("\"ready\"") }, "\(report())\n\(daemon.log.suffix(2000))")
        let reported = Self.reported(report())
        let lead = Int32(try #require(reported["lead"] as? Int))
        let spinner = Int32(try #require(reported["spinner"] as? Int))
        let spinnerParent = Int32(try #require(reported["spinner parent"] as? Int))
        let stray = Int32(try #require(reported["stray"] as? Int))
        #expect(reported["stray parent"] as? Int == Int(daemon.pid), "the stray is the daemon's child: \(report())")

        // The control: both spin while the app is in front.
        #expect(await SuspensionEvidence.advance([spinner, stray]), "\(report())")

        _ = try daemon.client().request(.home)
        #expect(
            await waitUntil { (try? Self.app(id, of: daemon).state) == .suspended }, "\(daemon.log.suffix(2000))")
        #expect(
            await waitUntil { SuspensionEvidence.state(spinner) == "T" },
            "the setsid child's child is stopped with its app")
        #expect(await SuspensionEvidence.movement([spinner]).isEmpty, "a suspended app's processes use no CPU")
        #expect(
            await waitUntil { kill(stray, 0) != 0 && errno == ESRCH },
            "the stray is ended, not left spinning: \(SuspensionEvidence.state(stray).map(String.init) ?? "gone")")

        _ = try daemon.client().request(.quit(AppReference(bundle: BundleID(id))))
        for (name, pid) in [("lead", lead), ("spinner", spinner), ("spinner's parent", spinnerParent)] {
            #expect(await waitUntil { kill(pid, 0) != 0 && errno == ESRCH }, "\(name) \(pid) outlived bgctl quit")
        }
        #expect(
            await waitUntil { Self.zombieChildren(of: daemon.pid).isEmpty }, "\(Self.zombieChildren(of: daemon.pid))")
    }

    /// The app's `report.jsonl`, each key's last value.
    static func reported(_ text: String) -> [String: Any] {
        var values: [String: Any] = [:]
        for line in text.split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let key = object["key"] as? String
            else { continue }
            values[key] = object["value"]
        }
        return values
    }

    static func app(_ id: String, of daemon: DaemonProcess) throws -> AppInfo {
        guard case .apps(let list) = try daemon.client().request(.ps).body,
            let app = list.apps.first(where: { $0.id.rawValue == id })
        else { throw HarnessError("no \(id) in ps") }
        return app
    }

    /// Zombie processes whose parent is `pid`.
    static func zombieChildren(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { child in
            guard let text = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return false }
            let fields = text[text.index(after: close)...].split(separator: " ")
            return fields.count > 1 && fields[0] == "Z" && Int32(fields[1]) == pid
        }
    }
}
