import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A daemon that goes away (killed, or stopped with `--live-restore`) ends no app: the next
/// one adopts the processes from the store, a suspended app stays frozen until it is opened,
/// and a running one reconnects and is driven as before. Judged by the processes themselves
/// (same pids, frozen or not, what their logs show), not by what the daemon says.
@Suite("A daemon restart keeps the apps", .timeLimit(.minutes(5)), .tearsDown)
struct RestartAdoptionTests {
    /// Two apps, one suspended and one in front, under a daemon in `directory`. The one that
    /// is suspended spins (a thread and a child that burn CPU), so its CPU time shows whether
    /// it is frozen: an idle process would look the same either way.
    private struct Scene {
        let directory: TemporaryDirectory
        let bundles: String
        let arguments: [String]
        let front: String
        let sleeper: String

        init(prefix: String, suspension: String) throws {
            directory = try TemporaryDirectory(prefix: prefix)
            bundles = directory.appending("bundles")
            try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
            front = try TestAppBundles.make("Front", into: bundles)
            sleeper = try TestAppBundles.make("Sleeper", behavior: "spin", into: bundles)
            arguments = LifecycleTests.fastPolicy + ["--suspension", suspension]
        }

        /// Starts a daemon on the scene; `extraArguments` are this run's only, so a daemon
        /// that adopts what a `--live-restore` one left ends the apps (and unmounts their
        /// data volumes) when the test stops it.
        func start(_ extraArguments: [String] = []) async throws -> DaemonProcess {
            try await DaemonProcess(
                directory: directory, bundleDirectories: [bundles], extraArguments: arguments + extraArguments)
        }

        func appLog(_ id: String, of daemon: DaemonProcess) -> String {
            AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(id).log") ?? ""
        }
    }

    private static func app(_ id: String, of daemon: DaemonProcess) throws -> AppInfo {
        guard case .apps(let list) = try daemon.client().request(.ps).body,
            let app = list.apps.first(where: { $0.id.rawValue == id })
        else { throw HarnessError("no \(id) in ps") }
        return app
    }

    private static func request(_ body: ClientMessage.Body, of daemon: DaemonProcess) throws -> DaemonMessage.Body {
        try daemon.client().request(body).body
    }

    /// The sleeper suspended, the front app in front; returns their pids, and the sleeper's
    /// spinning child's.
    private static func prepare(_ scene: Scene, _ daemon: DaemonProcess) async throws -> (
        front: Int32, sleeper: Int32, sleeperChild: Int32
    ) {
        _ = try request(.open(OpenApp(bundle: BundleID(scene.sleeper))), of: daemon)
        #expect(await waitUntil { scene.appLog(scene.sleeper, of: daemon).contains("didBecomeActive") })
        let sleeper = try #require(try app(scene.sleeper, of: daemon).pid)
        let child = try #require(SuspensionEvidence.spinningChild(in: scene.appLog(scene.sleeper, of: daemon)))
        // The control: while it runs, the sleeper and its child use CPU.
        #expect(await SuspensionEvidence.advance([sleeper, child]), "the sleeper spins while it runs")
        _ = try request(.open(OpenApp(bundle: BundleID(scene.front))), of: daemon)
        #expect(await waitUntil { scene.appLog(scene.front, of: daemon).contains("didBecomeActive") })
        #expect(try await waitUntil { try app(scene.sleeper, of: daemon).state == .suspended })
        let front = try #require(try app(scene.front, of: daemon).pid)
        return (front, sleeper, child)
    }

    /// What the kernel says of a suspended app's processes: its cgroup frozen (`frozen 1`), or,
    /// under signals, every process stopped; and none gains a tick of CPU over 2 s.
    private static func expectFrozen(_ pids: [Int32], suspension: String, _ when: String) async {
        if suspension == "signals" {
            #expect(
                await waitUntil { pids.map(SuspensionEvidence.state).allSatisfy { $0 == "T" } },
                "\(when): not every process stopped")
        } else {
            #expect(
                await waitUntil { pids.allSatisfy(SuspensionEvidence.cgroupFrozen) },
                "\(when): cgroup.events does not say frozen 1")
        }
        let moved = await SuspensionEvidence.movement(pids)
        #expect(moved.isEmpty, "\(when): the suspended app ran: \(moved)")
    }

    private func adoptsAfter(signal: Int32, suspension: String, extraArguments: [String] = []) async throws {
        let scene = try Scene(prefix: "adopt", suspension: suspension)
        atTeardown { scene.directory.remove() }
        let first = try await scene.start(extraArguments)
        let pids = try await Self.prepare(scene, first)
        let spinning = [pids.sleeper, pids.sleeperChild]
        await Self.expectFrozen(spinning, suspension: suspension, "before the restart")

        first.signal(signal)
        #expect(await first.waitForExit(timeout: .seconds(15)))
        #expect(kill(pids.front, 0) == 0 && kill(pids.sleeper, 0) == 0, "the apps outlived the daemon")

        let statBefore = (try? String(contentsOfFile: "/proc/\(pids.front)/stat", encoding: .utf8)) ?? "gone"
        let second = try await scene.start()
        atTeardown { await second.stop() }
        let statAfter = (try? String(contentsOfFile: "/proc/\(pids.front)/stat", encoding: .utf8)) ?? "gone"
        #expect(second.log.contains("adopted from an earlier run"), "\(second.log.suffix(2000))")
        #expect(
            statAfter != "gone" && !statAfter.contains(") Z "),
            "before: \(statBefore) after: \(statAfter)\nold daemon: \(first.log.suffix(2500))\nfront log: \(scene.appLog(scene.front, of: second))"
        )
        // The same processes, in the same states.
        #expect(try Self.app(scene.front, of: second).pid == pids.front, "\(second.log.suffix(4000))")
        #expect(try Self.app(scene.sleeper, of: second).pid == pids.sleeper)
        #expect(try Self.app(scene.sleeper, of: second).state == .suspended)
        // The front app reconnects and checks in again: in front once more.
        #expect(try await waitUntil { try Self.app(scene.front, of: second).state == .active }, "\(second.log)")

        // Still frozen: the spinning app and its child gain no CPU.
        await Self.expectFrozen(spinning, suspension: suspension, "after the restart")

        // The front app hears the new daemon: sent home, it says so (in its log, which the
        // new daemon drains from the same pipe).
        let backgroundBefore = scene.appLog(scene.front, of: second).components(separatedBy: "didEnterBackground").count
        _ = try Self.request(.home, of: second)
        #expect(
            await waitUntil {
                scene.appLog(scene.front, of: second).components(separatedBy: "didEnterBackground").count
                    > backgroundBefore
            }, "\(scene.appLog(scene.front, of: second))")

        // Opened, the suspended app thaws, reconnects, and hears it came to the front.
        let activeBefore = scene.appLog(scene.sleeper, of: second).components(separatedBy: "didBecomeActive").count
        _ = try Self.request(.open(OpenApp(bundle: BundleID(scene.sleeper))), of: second)
        #expect(
            await waitUntil {
                scene.appLog(scene.sleeper, of: second).components(separatedBy: "didBecomeActive").count
                    > activeBefore
            }, "\(scene.appLog(scene.sleeper, of: second))")
        #expect(try Self.app(scene.sleeper, of: second).pid == pids.sleeper, "thawed, not relaunched")
        #expect(try Self.app(scene.sleeper, of: second).state == .active)
        // The control: thawed, the same two processes spin again.
        #expect(await SuspensionEvidence.advance(spinning), "thawed, the sleeper and its child spin again")
    }

    @Test("killed (SIGKILL): the next daemon adopts a running and a suspended app (cgroup freezer)")
    func killedCgroup() async throws {
        try await adoptsAfter(signal: SIGKILL, suspension: "auto")
    }

    @Test("killed (SIGKILL): the same with SIGSTOP/SIGCONT")
    func killedSignals() async throws {
        try await adoptsAfter(signal: SIGKILL, suspension: "signals")
    }

    @Test("stopped with --live-restore (SIGTERM): the apps are left running and adopted")
    func liveRestore() async throws {
        try await adoptsAfter(signal: SIGTERM, suspension: "auto", extraArguments: ["--live-restore"])
    }

    @Test("an app that died while no daemon ran is not adopted: terminated by the system, its pid not trusted")
    func deadAppIsNotAdopted() async throws {
        let scene = try Scene(prefix: "adopt-dead", suspension: "auto")
        atTeardown { scene.directory.remove() }
        let first = try await scene.start()
        let pids = try await Self.prepare(scene, first)
        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(15)))
        kill(pids.front, SIGKILL)
        #expect(await waitUntil { kill(pids.front, 0) != 0 || ProcessStatLetter.of(pids.front) == "Z" })

        let second = try await scene.start()
        atTeardown { await second.stop() }
        let front = try Self.app(scene.front, of: second)
        #expect(front.state == .notRunning && front.pid == nil)
        #expect(front.lastExit?.reason?.contains("not adopted") == true, "\(String(describing: front.lastExit))")
        #expect(try Self.app(scene.sleeper, of: second).pid == pids.sleeper)
    }

    @Test(
        "a hostile app whose lead process dies while no daemon runs leaves no process behind (its children are ended)",
        arguments: ["auto", "signals"])
    func orphansAreEnded(suspension: String) async throws {
        let directory = try TemporaryDirectory(prefix: "adopt-orphans")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let id = try TestAppBundles.make("Breeder", behavior: "fork-children", into: bundles)
        let arguments = LifecycleTests.fastPolicy + ["--suspension", suspension]
        let first = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: arguments)
        _ = try Self.request(.open(OpenApp(bundle: BundleID(id))), of: first)
        let log = { AppLogFile.text(atPath: first.stateDirectory + "/logs/\(id).log") ?? "" }
        #expect(await waitUntil { log().components(separatedBy: "child ").count > 2 }, "\(log())")
        let children = log().split(separator: "\n").compactMap { line in
            line.hasPrefix("child ") ? Int32(line.dropFirst(6)) : nil
        }
        #expect(children.count == 2)
        let leader = try #require(try Self.app(id, of: first).pid)

        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(10)))
        // The escape: with no daemon to see it, the lead process goes and its children stay.
        kill(leader, SIGKILL)
        #expect(children.allSatisfy { kill($0, 0) == 0 })

        let second = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: arguments)
        atTeardown { await second.stop() }
        let alive = { children.filter { ProcessStatLetter.of($0).map { $0 != "Z" } ?? false } }
        #expect(await waitUntil { alive().isEmpty }, "still running: \(alive())\n\(second.log.suffix(2000))")
        #expect(try Self.app(id, of: second).pid == nil)
    }

    @Test(
        "the app socket speaks for no one but an app's lead process: a person there can neither check in as an app nor act as a person"
    )
    func appSocketRefusesOthers() async throws {
        let scene = try Scene(prefix: "adopt-sock", suspension: "auto")
        atTeardown { scene.directory.remove() }
        let daemon = try await scene.start()
        atTeardown { await daemon.stop() }
        _ = try Self.request(.open(OpenApp(bundle: BundleID(scene.front))), of: daemon)
        #expect(try await waitUntil { try Self.app(scene.front, of: daemon).state == .active })

        let appSocket = DefaultPaths.appSocket(forControlSocket: daemon.socketPath)
        let intruder = try ControlClient(socketPath: appSocket, timeout: .seconds(5))
        guard case .error(let checkIn) = try intruder.request(.checkIn(CheckIn(bundle: BundleID(scene.front)))).body
        else {
            Issue.record("a process that is no app's lead checked in as \(scene.front) on the app socket")
            return
        }
        #expect(checkIn.code == .notPermitted)
        guard case .error(let ps) = try intruder.request(.ps).body else {
            Issue.record("a person's request was served on the app socket")
            return
        }
        #expect(ps.code == .notPermitted)
        // Nor what the capabilities hold (how many apps follow the location, play, share).
        guard case .error(let capabilities) = try intruder.request(.capabilities).body else {
            Issue.record("the capabilities' rows were served on the app socket")
            return
        }
        #expect(capabilities.code == .notPermitted)
        // The app's own connection is untouched: it still hears the daemon.
        let before = scene.appLog(scene.front, of: daemon).components(separatedBy: "didEnterBackground").count
        _ = try Self.request(.home, of: daemon)
        #expect(
            await waitUntil {
                scene.appLog(scene.front, of: daemon).components(separatedBy: "didEnterBackground").count > before
            })
    }

    @Test("without --live-restore, SIGTERM still ends the apps")
    func plainStopEndsApps() async throws {
        let scene = try Scene(prefix: "adopt-stop", suspension: "auto")
        atTeardown { scene.directory.remove() }
        let first = try await scene.start()
        let pids = try await Self.prepare(scene, first)
        #expect(await first.stop())
        #expect(await waitUntil { kill(pids.front, 0) != 0 && kill(pids.sleeper, 0) != 0 })
        let second = try await scene.start()
        atTeardown { await second.stop() }
        #expect(try Self.app(scene.front, of: second).state == .notRunning)
        #expect(!second.log.contains("adopted from an earlier run"))
    }
}

/// The state letter of /proc/PID/stat (Z for a zombie), or `nil` when the process is gone.
enum ProcessStatLetter {
    static func of(_ pid: Int32) -> Character? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(close, offsetBy: 2)...].first
    }
}
