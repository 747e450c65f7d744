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
@Suite("Leaving the app's session", .timeLimit(.minutes(5)), .tearsDown)
struct SessionShedTests {
    @Test(
        "under signals, a setsid child of a live app, and one that outlived its app, are no person: no grant; the orphan is reaped",
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
                leaving, wait_for_lead = os.pipe()
                child = os.fork()
                if child == 0:
                    # Out of the app's session while the app runs.
                    os.setsid()
                    report("setsid child", public(grant))
                    if os.fork() == 0:
                        # Out again, and left behind: its parent exits now, the app next.
                        os.setsid()
                        os.close(wait_for_lead)
                        os.read(leaving, 1)
                        report("orphan", public(grant))
                        report("orphan parent", os.getppid())
                        report("done", True)
                        os._exit(0)
                    os._exit(0)
                os.close(leaving)
                os.waitpid(child, 0)
                while "setsid child" not in open(os.path.join(DATA, "report.jsonl")).read():
                    time.sleep(0.05)
                os._exit(0)
                """,
            into: bundles)
        for path in [directory.path, bundles] { chown(path, uid, uid) }
        let setpriv = ["/usr/bin/setpriv", "--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups"]
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles],
            extraArguments: ["--suspension", "signals"], launcher: setpriv)
        atTeardown { await daemon.stop() }
        #expect(try daemon.status().suspension?.contains("the daemon adopts orphans") == true)

        _ = try daemon.client().request(.open(AppReference(bundle: id)))
        let reportPath = daemon.stateDirectory + "/data/\(id)/report.jsonl"
        func report() -> String { (try? String(contentsOfFile: reportPath, encoding: .utf8)) ?? "" }
        #expect(await waitUntil { report().contains("\"done\"") }, "\(report())\n\(daemon.log.suffix(2000))")

        guard case .permissions(let list) = try daemon.client().request(.permissions(PermissionsQuery(bundle: id))).body
        else { throw HarnessError("no PERMISSIONS") }
        #expect(list.apps.first?.microphone != .granted, "\(report())")
        #expect(daemon.log.contains("an app's orphan"), "the orphan was refused as one")
        // The orphan was the daemon's child, and it is reaped: no zombie is left with the daemon.
        #expect(report().contains("\"orphan parent\", \"value\": \(daemon.pid)"), "\(report())")
        #expect(
            await waitUntil { Self.zombieChildren(of: daemon.pid).isEmpty }, "\(Self.zombieChildren(of: daemon.pid))")

        // A person still can.
        _ = try daemon.client().request(.authorize(Authorize(bundle: id, grant: .microphone(.granted))))
        guard
            case .permissions(let after) = try daemon.client().request(.permissions(PermissionsQuery(bundle: id))).body
        else { throw HarnessError("no PERMISSIONS") }
        #expect(after.apps.first?.microphone == .granted)
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
