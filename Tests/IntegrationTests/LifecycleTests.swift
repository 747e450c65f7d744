import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The life cycle with real processes: real cgroups (or signals), real CPU time from /proc.
@Suite("Life cycle with real processes", .timeLimit(.minutes(5)), .tearsDown)
struct LifecycleTests {
    static let fibonacci = "org.backgrounder.samples.fibonacci"
    /// Short numbers so the tests take seconds: budget 4 s, expiration 1.5 s before it, grace 1 s.
    static let fastPolicy = ["--task-budget", "4", "--expiration-warning", "1.5", "--suspend-grace", "1"]

    struct Running {
        let directory: TemporaryDirectory
        let bundles: String
        let daemon: DaemonProcess

        init(
            prefix: String,
            suspension: String = "auto",
            gpsd: String? = nil,
            extraArguments: [String] = [],
            environment: [String: String] = [:],
            setUp: (String) throws -> Void
        ) async throws {
            let directory = try TemporaryDirectory(prefix: prefix)
            self.directory = directory
            bundles = directory.appending("bundles")
            do {
                try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
                try setUp(bundles)
                daemon = try await DaemonProcess(
                    directory: directory,
                    bundleDirectories: [bundles],
                    gpsd: gpsd,
                    extraArguments: LifecycleTests.fastPolicy + ["--suspension", suspension] + extraArguments,
                    environment: environment
                )
            } catch {
                // Thrown from init, so no test holds it to tear down: removed here.
                directory.remove()
                throw error
            }
        }

        func request(_ body: ClientMessage.Body) throws -> DaemonMessage.Body {
            try daemon.client().request(body).body
        }

        func app(_ id: String) throws -> AppInfo {
            guard case .apps(let list) = try request(.ps), let app = list.apps.first(where: { $0.id.rawValue == id })
            else {
                throw HarnessError("no \(id) in ps")
            }
            return app
        }

        /// An app's data directory.
        func dataDirectory(_ id: String) -> String { daemon.stateDirectory + "/data/" + id }

        func appLog(_ id: String) -> String {
            AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(id).log") ?? ""
        }

        func tearDown() async {
            await daemon.stop()
            directory.remove()
        }
    }

    /// The last `n=` index Fibonacci printed.
    static func lastIndex(_ log: String) -> Int? {
        log.split(separator: "\n").reversed().lazy.compactMap { line -> Int? in
            guard line.hasPrefix("n=") else { return nil }
            return Int(line.dropFirst(2).prefix { $0.isNumber })
        }.first
    }

    /// Waits until two reads of a log half a second apart are the same.
    static func logSettles(_ read: @escaping @Sendable () -> String) async -> Bool {
        var last = read()
        for _ in 0..<40 {
            try? await Task.sleep(for: .milliseconds(500))
            let now = read()
            if now == last { return true }
            last = now
        }
        return false
    }

    static func cgroup2Mount() -> String? {
        let text = SandboxTests.kernelText("/proc/self/mountinfo")
        for line in text.split(separator: "\n") where line.contains(" - cgroup2 ") {
            let fields = line.split(separator: " ")
            if fields.count > 4 { return String(fields[4]) }
        }
        return nil
    }

    func fibonacciRunsOnBorrowedTimeThenFreezes(suspension: String) async throws {
        let running = try await Running(prefix: "fib", suspension: suspension) { bundles in
            try SampleBundles.assemble("Fibonacci", into: bundles)
        }
        atTeardown { await running.tearDown() }
        let id = Self.fibonacci

        guard case .done = try running.request(.open(OpenApp(bundle: BundleID(id)))) else {
            Issue.record("open failed")
            return
        }
        #expect(try await waitUntil { try running.app(id).state == .active })
        #expect(try await waitUntil { try running.app(id).assertions == ["task:fibonacci"] })
        _ = try running.request(.home)

        // In the background it keeps computing on its task, and says how much time is left.
        #expect(try running.app(id).state == .background)
        #expect(await waitUntil { running.appLog(id).contains("remaining=") })
        // The expiration handler runs before the deadline, then the app is suspended.
        #expect(await waitUntil { running.appLog(id).contains("expiration handler") }, "\(running.appLog(id))")
        #expect(try await waitUntil { try running.app(id).state == .suspended }, "\(running.daemon.log)")

        let pid = try #require(try running.app(id).pid)
        if suspension == "auto" {
            // The app's cgroup is the one its pid is in (/proc/PID/cgroup's 0:: line).
            let membership = try String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)
            let relative = try #require(membership.split(separator: "\n").first { $0.hasPrefix("0::") }?.dropFirst(3))
            #expect(relative.hasSuffix("/app-\(id)"))
            let mount = try #require(Self.cgroup2Mount())
            let events = try String(contentsOfFile: mount + relative + "/cgroup.events", encoding: .utf8)
            #expect(events.contains("frozen 1"))
        }
        // Fibonacci sleeps 500 ms between numbers, so its CPU time barely moves even while it
        // runs and proves nothing here (`spinningAppIsFrozen` proves that with a busy app);
        // what would show is a new number. What the app wrote before it froze may still be in
        // its output pipe: the daemon copies it to the log on a thread of its own. Sample once
        // the log has stopped growing.
        #expect(await Self.logSettles { running.appLog(id) })
        let indexBefore = try #require(Self.lastIndex(running.appLog(id)))
        try await Task.sleep(for: .seconds(2))
        #expect(Self.lastIndex(running.appLog(id)) == indexBefore, "a suspended app prints nothing")

        // Opened again, it is thawed and continues where it stopped.
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(try running.app(id).state == .active)
        #expect(await waitUntil { (Self.lastIndex(running.appLog(id)) ?? 0) > indexBefore + 3 })
        #expect(running.appLog(id).contains("n=\(indexBefore + 1) "), "the sequence continues from n=\(indexBefore)")
        #expect(try running.app(id).pid == pid, "the same process, not a relaunch")
    }

    @Test("Fibonacci computes on its task, its expiration handler runs, it is frozen, and open thaws it (cgroup)")
    func fibonacciCgroup() async throws {
        try await fibonacciRunsOnBorrowedTimeThenFreezes(suspension: "auto")
    }

    @Test("the same with SIGSTOP/SIGCONT instead of the freezer")
    func fibonacciSignals() async throws {
        try await fibonacciRunsOnBorrowedTimeThenFreezes(suspension: "signals")
    }

    /// A `spin` app (a thread and a child that burn CPU) in front, then home. Suspended, the
    /// kernel says its cgroup is frozen (or both processes stopped) and neither gains a tick
    /// over 2 s; in front before, and thawed after, both do: the control that shows the check
    /// can fail.
    func spinningAppIsFrozen(suspension: String) async throws {
        var id = ""
        let running = try await Running(prefix: "spin", suspension: suspension) { bundles in
            id = try TestAppBundles.make("Spinner", behavior: "spin", into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") }, "\(running.appLog(id))")
        let pid = try #require(try running.app(id).pid)
        let child = try #require(SuspensionEvidence.spinningChild(in: running.appLog(id)), "\(running.appLog(id))")
        let pids = [pid, child]
        #expect(await SuspensionEvidence.advance(pids), "in front, the app and its child spin")

        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).state == .suspended }, "\(running.daemon.log)")
        if suspension == "auto" {
            #expect(SuspensionEvidence.cgroupDirectory(of: pid)?.hasSuffix("/app-\(id)") == true)
            #expect(SuspensionEvidence.cgroupDirectory(of: child) == SuspensionEvidence.cgroupDirectory(of: pid))
            #expect(await SuspensionEvidence.becomeFrozen(pid), "cgroup.events of \(pid) does not say frozen 1")
        } else {
            #expect(await waitUntil { pids.map(SuspensionEvidence.state) == ["T", "T"] }, "both stopped")
        }
        let moved = await SuspensionEvidence.movement(pids)
        #expect(moved.isEmpty, "a suspended app ran: \(moved)")
        #expect(try running.app(id).state == .suspended)

        // Opened, the same processes are thawed and spin again.
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await SuspensionEvidence.advance(pids), "thawed, the app and its child spin again")
        #expect(!SuspensionEvidence.cgroupFrozen(pid))
        #expect(try running.app(id).pid == pid, "the same process, not a relaunch")
    }

    @Test("a spinning app and its spinning child use no CPU once suspended, and do before and after (cgroup)")
    func spinningCgroup() async throws {
        try await spinningAppIsFrozen(suspension: "auto")
    }

    @Test("the same with SIGSTOP/SIGCONT instead of the freezer")
    func spinningSignals() async throws {
        try await spinningAppIsFrozen(suspension: "signals")
    }

    @Test("an app that never ends its task is terminated at the deadline, and says why")
    func overrun() async throws {
        var id = ""
        let running = try await Running(prefix: "over") { bundles in
            id = try TestAppBundles.make("Stubborn", behavior: "never-end-task", into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("began task") })
        _ = try running.request(.home)
        #expect(await waitUntil { running.appLog(id).contains("expiration handler ignored") })
        #expect(try await waitUntil { try running.app(id).state == .notRunning }, "\(running.daemon.log)")
        let exit = try running.app(id).lastExit
        #expect(exit?.kind == .terminated && exit?.reason == "background task overran", "\(String(describing: exit))")
        #expect(running.daemon.log.contains("background task overran"))
    }

    @Test("an app with no assertion is suspended after the grace period")
    func graceThenSuspend() async throws {
        var id = ""
        let running = try await Running(prefix: "idle") { bundles in
            id = try TestAppBundles.make("Idle", into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        _ = try running.request(.home)
        #expect(try running.app(id).state == .background)
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        #expect(await waitUntil { running.appLog(id).contains("didEnterBackground") })
    }

    @Test("an ExitsOnSuspend app goes from home straight to willTerminate and exit, even holding a task")
    func exitsOnSuspend() async throws {
        var id = ""
        let running = try await Running(prefix: "exit") { bundles in
            // It begins a task in front that it never ends: no background phase lets it run on.
            id = try TestAppBundles.make("Leaver", behavior: "never-end-task", exitsOnSuspend: true, into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        #expect(await waitUntil { running.appLog(id).contains("began task") })
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).state == .notRunning })
        #expect(running.appLog(id).contains("willTerminate"))
        #expect(!running.appLog(id).contains("didEnterBackground"), "\(running.appLog(id))")
        #expect(try running.app(id).lastExit?.reason == "exits on suspend")
    }

    @Test("force quit ends the app, is remembered, and open clears it")
    func forceQuit() async throws {
        var id = ""
        let running = try await Running(prefix: "quit") { bundles in
            id = try TestAppBundles.make("Quitter", into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .notRunning })
        #expect(try running.app(id).forceQuit)
        #expect(running.appLog(id).contains("willTerminate"))
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(try !running.app(id).forceQuit)
    }

    @Test("a crash loop is throttled: after five crashes in the window a launch is refused")
    func crashLoop() async throws {
        var id = ""
        // An hour's window rather than ten seconds: five launches of a crashing app on a loaded
        // machine take however long they take, and this test is about the daemon applying the
        // rule. The rule's timing is proven with given times in CrashLoopTests.
        let running = try await Running(prefix: "loop", extraArguments: ["--crash-loop-window", "3600"]) { bundles in
            id = try TestAppBundles.make("Crasher", behavior: "crash", into: bundles)
        }
        atTeardown { await running.tearDown() }
        for attempt in 1...5 {
            guard case .done = try running.request(.open(OpenApp(bundle: BundleID(id)))) else {
                Issue.record("launch \(attempt) refused too early")
                return
            }
            #expect(try await waitUntil { try running.app(id).state == .notRunning })
        }
        #expect(try running.app(id).lastExit == AppExit(kind: .crashed, status: 3))
        guard case .error(let error) = try running.request(.open(OpenApp(bundle: BundleID(id)))) else {
            Issue.record("the sixth launch was not refused")
            return
        }
        #expect(error.message.contains("crash-looping"))
        #expect(try running.app(id).throttled != nil)
    }

    @Test("an app that ignores SIGTERM is killed after the grace period")
    func ignoresSigterm() async throws {
        var id = ""
        let running = try await Running(prefix: "deaf") { bundles in
            id = try TestAppBundles.make("Deaf", behavior: "ignore-sigterm", into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        // willTerminate makes TestApp exit on its own; to test SIGTERM, kill its connection
        // handling: quit it while it is suspended, so it hears nothing before SIGTERM.
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil(timeout: .seconds(15)) { try running.app(id).state == .notRunning })
        #expect(running.daemon.log.contains("did not exit within"), "\(running.daemon.log)")
    }

    @Test("children an app forks are frozen with it and die with it")
    func forkedChildren() async throws {
        var id = ""
        let running = try await Running(prefix: "fork") { bundles in
            id = try TestAppBundles.make("Forker", behavior: "fork-children", into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        let children = running.appLog(id).split(separator: "\n").compactMap { line in
            line.hasPrefix("child ") ? Int32(line.dropFirst(6)) : nil
        }
        #expect(children.count == 2)
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        // The children sleep, so their state letter would pass for frozen either way: the
        // kernel's word is that they are in the app's cgroup and it is frozen. (That a child's
        // CPU stops is `spinningAppIsFrozen`'s, with a child that spins.)
        let pid = try #require(try running.app(id).pid)
        let cgroup = try #require(SuspensionEvidence.cgroupDirectory(of: pid))
        for child in children {
            #expect(SuspensionEvidence.cgroupDirectory(of: child) == cgroup, "child \(child)")
            #expect(await SuspensionEvidence.becomeFrozen(child), "child \(child)'s cgroup is not frozen")
        }
        _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil(timeout: .seconds(15)) { try running.app(id).state == .notRunning })
        #expect(await waitUntil { children.allSatisfy { kill($0, 0) != 0 } }, "no child outlives its app")
    }

    @Test("a process the daemon did not launch cannot check in as an app")
    func impostor() async throws {
        var id = ""
        let running = try await Running(prefix: "fake") { bundles in
            id = try TestAppBundles.make("Real", into: bundles)
        }
        atTeardown { await running.tearDown() }
        // Not running at all:
        guard case .error(let notLaunched) = try running.request(.checkIn(CheckIn(bundle: BundleID(id)))) else {
            Issue.record("an impostor checked in")
            return
        }
        #expect(notLaunched.code == .notPermitted)
        #expect(notLaunched.message.contains("BACKGROUNDER_FD"))
        // Running, but this test process holds no connection the daemon handed the app:
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        guard case .error(let notItself) = try running.request(.checkIn(CheckIn(bundle: BundleID(id)))) else {
            Issue.record("an impostor checked in while the app ran")
            return
        }
        #expect(notItself.code == .notPermitted)
        #expect(running.daemon.log.contains("refused CHECKIN"))
        // And no app request passes on the public socket either.
        guard case .error(let noTask) = try running.request(.beginTask(BeginTask(name: "x"))) else {
            Issue.record("a task without check-in")
            return
        }
        #expect(noTask.code == .notPermitted)
    }
}
