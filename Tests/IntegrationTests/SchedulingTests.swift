import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The system doing the work, with real processes: fetch and push windows, the one coalesced
/// timer, task requests that outlive the daemon, and the push budget.
@Suite("Scheduling with real processes", .timeLimit(.minutes(10)), .tearsDown)
struct SchedulingTests {
    typealias Running = LifecycleTests.Running

    /// A daemon with one test app per behaviour, and scheduling numbers for tests.
    private func running(
        _ prefix: String, scheduling: String, apps: [(name: String, behavior: String)],
        modes: [String] = ["fetch", "remote-notification"]
    ) async throws -> (Running, [String]) {
        var ids: [String] = []
        let running = try await Running(prefix: prefix, extraArguments: ["--scheduling", scheduling]) { bundles in
            for app in apps {
                let id = "org.backgrounder.tests.\(app.name.lowercased())"
                ids.append(
                    try TestAppBundles.make(
                        app.name, behavior: app.behavior, modes: modes, taskIdentifiers: [id + ".refresh"],
                        into: bundles))
            }
        }
        return (running, ids)
    }

    /// Opens an app, waits for its launch to have done `marker`, and sends it home.
    private func runOnce(_ running: Running, _ id: String, until marker: String) async throws {
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains(marker) }, "\(running.appLog(id))")
        _ = try running.request(.home)
    }

    /// The `remaining=N` the app printed on the first line holding `prefix`.
    private func remaining(in log: String, after prefix: String) -> Int? {
        guard let line = log.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
            let range = line.range(of: "remaining=")
        else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }

    // MARK: Fetch

    @Test("a suspended app is woken for fetch, sees the window's time, completes early and is suspended at once")
    func suspendedAppFetches() async throws {
        // A minute's window: a suspension seen well within it can only come from the completion.
        let (running, ids) = try await running(
            "fetchwake", scheduling: "fetchWindow=60", apps: [("Fetcher", "fetch-newData")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        try await runOnce(running, id, until: "fetch interval set")
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        let pid = try running.app(id).pid

        guard case .done(let done) = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .fetch)))
        else {
            Issue.record("the fetch was refused")
            return
        }
        #expect(done.detail.contains("woke"))
        #expect(await waitUntil { running.appLog(id).contains("fetch completed newData") }, "\(running.appLog(id))")
        // backgroundTimeRemaining in the app, across the wake: the window's minute, not the
        // four seconds of task budget nor the nothing a suspended app had.
        let seen = try #require(remaining(in: running.appLog(id), after: "fetch remaining="))
        #expect((40...60).contains(seen), "the app saw \(seen) s left")
        #expect(try await waitUntil(timeout: .seconds(30)) { try running.app(id).state == .suspended })
        #expect(try running.app(id).pid == pid, "woken, not relaunched")
        // The completion handler was called twice; the second found the window closed and
        // BackgroundKit did not send it.
        #expect(!running.daemon.log.contains("is not open for \(id)"), "\(running.daemon.log)")
    }

    @Test("an app that is not running is launched into the background for fetch, completes and is suspended")
    func terminatedAppIsLaunchedForFetch() async throws {
        let (running, ids) = try await running(
            "fetchlaunch", scheduling: "fetchWindow=60", apps: [("Cold", "fetch-noData")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        #expect(try running.app(id).state == .notRunning)

        guard case .done(let done) = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .fetch)))
        else {
            Issue.record("the fetch was refused")
            return
        }
        #expect(done.detail.contains("relaunched"))
        #expect(await waitUntil { running.appLog(id).contains("launched fetch") }, "\(running.appLog(id))")
        #expect(await waitUntil { running.appLog(id).contains("fetch completed noData") }, "\(running.appLog(id))")
        #expect(try await waitUntil(timeout: .seconds(30)) { try running.app(id).state == .suspended })
        #expect(!running.appLog(id).contains("didBecomeActive"), "a background launch never comes to the front")
    }

    @Test("an app that lets its fetch window run out is suspended when it ends, and the daemon says so")
    func aWindowLeftOpenRunsOut() async throws {
        let (running, ids) = try await running(
            "fetchopen", scheduling: "fetchWindow=2", apps: [("Slow", "fetch-never")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        _ = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .fetch)))
        #expect(await waitUntil { running.appLog(id).contains("fetch left open") }, "\(running.appLog(id))")
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        #expect(
            await waitUntil { running.daemon.log.contains("closed before the app completed it") },
            "\(running.daemon.log)")
    }

    @Test("three apps due for fetch together share one wake of the daemon's timer")
    func dueFetchesAreCoalesced() async throws {
        // Each asks for fetch as it launches: due once it leaves the front, each may wait up to a
        // minute. A minute rather than less: the plan below turns on whether an app left the
        // front before the first wake, and the further that wake, the further from the edge any
        // machine's opening of three apps is (an overloaded one once came within a second).
        let apps = [("First", "fetch-newData"), ("Second", "fetch-newData"), ("Third", "fetch-newData")]
        let (running, ids) = try await running(
            "coalesce", scheduling: "coalescingTolerance=60,fetchTolerance=60,fetchWindow=30", apps: apps)
        atTeardown { await running.tearDown() }
        // The daemon plans wakes only for apps out of front, so what it should do depends on
        // when each became due (it set its interval as it launched) and when it left the front.
        // Opened in a few seconds, that is one wake for all three; on a machine so loaded that
        // opening them took longer than the tolerance, more, and the daemon must match that
        // plan, not a fixed count. Leaving the front is timed here, after `home` answered;
        // plans for up to three seconds either side are all accepted, so the reading's lag
        // cannot decide (beside a second suite and a build, one second was not enough).
        // Each app's earliest fetch is read while it is still in front, where no wake can fetch
        // it: read after `home`, it was once already fetched by a wake it joined at once, and
        // its next fetch, 15 minutes on, made the plan (CI, under load).
        var jobs: [CoalescedFetch] = []
        for id in ids {
            _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
            #expect(await waitUntil { running.appLog(id).contains("fetch interval set") }, "\(running.appLog(id))")
            let fetch = try await waitUntil { try Self.scheduled(running.daemon, id).contains { $0.kind == "fetch" } }
            try #require(fetch, "\(id) has no fetch scheduled")
            let earliest = try #require(try Self.scheduled(running.daemon, id).first { $0.kind == "fetch" }?.nextRun)
            _ = try running.request(.home)
            jobs.append(CoalescedFetch(earliest: Date(timeIntervalSince1970: earliest), available: Date()))
        }
        let plans = Set(
            [-3.0, -2, -1, 0, 1, 2, 3].map { CoalescedFetch.wakes(jobs, shiftingAvailability: $0, tolerance: 60) })
        for id in ids {
            #expect(
                await waitUntil(timeout: .seconds(180)) { running.appLog(id).contains("fetch completed newData") },
                "\(id): \(running.appLog(id))")
        }
        let wakes = running.daemon.log.split(separator: "\n").filter { $0.contains("scheduled job(s)") }
        let counts = wakes.compactMap { line in
            line.range(of: "starting ").flatMap { Int(line[$0.upperBound...].prefix { $0.isNumber }) }
        }
        #expect(plans.contains(counts), "daemon woke for \(counts) job(s); planned \(plans) from \(jobs)")
    }

    @Test("an app whose fetches bring no data is fetched less and less often: the wait doubles")
    func noDataBacksOff() async throws {
        // A three-second interval, no tolerance, no favour for having been opened: the waits are
        // the backoff alone.
        let (running, ids) = try await running(
            "backoff",
            scheduling: "minimumFetchInterval=3,fetchTolerance=0,coalescingTolerance=0,favouredWithin=0,fetchWindow=30",
            apps: [("Empty", "fetch-noData")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        try await runOnce(running, id, until: "fetch interval set")

        // Four fetches: with the backoff, 6 s, then 12 s, then 24 s apart; without it, every 3 s.
        // The app notes the wall clock as each fetch reaches it, so the gaps are read after the
        // fact, not sampled in a window a loaded machine can miss. A slow machine only makes gaps
        // longer, and delivery lag moves a start by at most a few seconds: 3 s of slack still
        // tells a doubling wait from the 3 s interval.
        let fetched = await waitUntil(timeout: .seconds(300)) {
            running.appLog(id).components(separatedBy: "fetch completed noData").count - 1 >= 4
        }
        #expect(fetched, "\(running.appLog(id))")
        let starts = running.appLog(id).split(separator: "\n").compactMap { line -> Double? in
            guard line.hasPrefix("fetch remaining="), let range = line.range(of: " t=") else { return nil }
            return Double(line[range.upperBound...]).map { $0 / 1e9 }
        }
        try #require(starts.count >= 4, "\(running.appLog(id))")
        let gaps = zip(starts.dropFirst(), starts).map { $0 - $1 }
        for (gap, backoff) in zip(gaps, [6.0, 12, 24]) {
            #expect(gap >= backoff - 3, "fetches \(gaps) s apart; the backoff wants at least 6, 12, 24")
        }
    }

    // MARK: Push

    @Test("a push reaches the app with its payload, by bundle and by token; its completion suspends the app")
    func pushIsDelivered() async throws {
        let (running, ids) = try await running("push", scheduling: "pushWindow=60", apps: [("Pushed", "push")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        try await runOnce(running, id, until: "device token ")
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        let log = running.appLog(id)
        let token = try #require(
            log.split(separator: "\n").first { $0.hasPrefix("device token ") }.map { String($0.dropFirst(13)) })

        let payload = JSONValue.object(["aps": .object(["content-available": .number(1)]), "n": .number(1)])
        guard case .pushed(let result) = try running.request(.push(PushRequest(bundle: BundleID(id), payload: payload)))
        else {
            Issue.record("the push was refused")
            return
        }
        #expect(result.delivered)
        #expect(await waitUntil { running.appLog(id).contains(#"push {"aps":{"content-available":1},"n":1}"#) })
        #expect(try await waitUntil(timeout: .seconds(30)) { try running.app(id).state == .suspended })

        let second = JSONValue.object(["aps": .object(["content-available": .number(1)]), "n": .number(2)])
        guard case .pushed(let byToken) = try running.request(.push(PushRequest(token: token, payload: second))) else {
            Issue.record("the push by token was refused")
            return
        }
        #expect(byToken.delivered)
        #expect(await waitUntil { running.appLog(id).contains(#""n":2}"#) })

        // Bad pushes: an unknown token, a payload that is not an object, one too large.
        let unknown = try running.request(.push(PushRequest(token: "feedface", payload: payload)))
        #expect(unknown.errorCode == .notFound, "\(unknown)")
        let notObject = try running.request(.push(PushRequest(bundle: BundleID(id), payload: .string("hi"))))
        #expect(notObject.errorCode == .badRequest, "\(notObject)")
        let huge = JSONValue.object(["blob": .string(String(repeating: "x", count: 5000))])
        let tooLarge = try running.request(.push(PushRequest(bundle: BundleID(id), payload: huge)))
        #expect(tooLarge.errorCode == .badRequest, "\(tooLarge)")
        #expect(tooLarge.errorMessage.contains("4096"), "\(tooLarge)")
    }

    @Test("pushes past the budget are deferred, coalesced to the latest payload and delivered later, never dropped")
    func pushBudgetDefers() async throws {
        let (running, ids) = try await running(
            "pushbudget", scheduling: "pushWindow=30,pushBurst=3,pushRefill=6,coalescingTolerance=1",
            apps: [("Budget", "push")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        try await runOnce(running, id, until: "device token ")

        var results: [PushResult] = []
        for n in 1...5 {
            let payload = JSONValue.object(["aps": .object(["content-available": .number(1)]), "n": .number(Double(n))])
            guard
                case .pushed(let result) = try running.request(
                    .push(PushRequest(bundle: BundleID(id), payload: payload)))
            else {
                Issue.record("push \(n) was refused")
                return
            }
            results.append(result)
        }
        #expect(results.prefix(3).allSatisfy { $0.delivered }, "\(results)")
        #expect(results.suffix(2).allSatisfy { !$0.delivered && $0.deferredUntil != nil }, "\(results)")
        #expect(results[3].detail.contains("deferred until"), "\(results[3])")

        // The fifth replaces the fourth, and arrives once the budget has a push again.
        #expect(
            await waitUntil(timeout: .seconds(30)) { running.appLog(id).contains(#""n":5}"#) }, "\(running.appLog(id))")
        #expect(!running.appLog(id).contains(#""n":4}"#), "the older deferred payload was replaced")
        for n in 1...3 { #expect(running.appLog(id).contains(#""n":\#(n)}"#)) }
    }

    @Test("a force-quit app is not launched for a push")
    func forceQuitAppGetsNoPush() async throws {
        let (running, ids) = try await running("pushfq", scheduling: "pushWindow=30", apps: [("Quitter", "push")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        try await runOnce(running, id, until: "device token ")
        _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .notRunning })
        let launches = running.appLog(id).components(separatedBy: "launched ").count

        let payload = JSONValue.object(["aps": .object(["content-available": .number(1)])])
        let reply = try running.request(.push(PushRequest(bundle: BundleID(id), payload: payload)))
        #expect(reply.errorCode == .invalidState, "\(reply)")
        try await Task.sleep(for: .seconds(1))
        #expect(try running.app(id).state == .notRunning)
        #expect(running.appLog(id).components(separatedBy: "launched ").count == launches)
    }

    // MARK: Task requests

    @Test("an app-refresh request outlives a SIGKILLed daemon and runs when simulated, with its window's time")
    func refreshRequestSurvivesTheDaemon() async throws {
        let directory = try TemporaryDirectory(prefix: "refresh")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        let id = try TestAppBundles.make(
            "Refresher", behavior: "refresh", modes: ["fetch"],
            taskIdentifiers: ["org.backgrounder.tests.refresher.refresh"],
            into: bundles)
        let task = id + ".refresh"
        let arguments = LifecycleTests.fastPolicy + ["--scheduling", "appRefreshWindow=30"]
        let first = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: arguments)
        do {
            _ = try first.client().request(.open(OpenApp(bundle: BundleID(id))))
        } catch {
            Issue.record("open: \(error): \(first.log)")
            return
        }
        let log = directory.appending("state/logs/\(id).log")
        let appLog = { AppLogFile.text(atPath: log) ?? "" }
        #expect(await waitUntil { appLog().contains("submitted \(task)") }, "\(appLog())")
        do {
            #expect(try Self.scheduled(first, id).contains { $0.identifier == task && $0.kind == "appRefresh" })
        } catch {
            Issue.record("tasks: \(error): \(first.log)")
            return
        }

        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(10)))

        let second = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: arguments)
        atTeardown { await second.stop() }
        let pending = try Self.scheduled(second, id).first { $0.identifier == task }
        #expect(pending != nil, "the request was lost with the daemon")
        #expect(
            pending?.waitingFor.contains { $0.contains("earliest begin date") } == true,
            "\(String(describing: pending))")

        // The app outlived the daemon and was adopted, still in front: the task runs once it
        // leaves the front.
        _ = try second.client().request(.home)
        let reply = try second.client().request(.simulateTask(TaskDebugRequest(bundle: BundleID(id), identifier: task)))
            .body
        guard case .done = reply else {
            Issue.record("simulate task: \(reply)")
            return
        }
        #expect(await waitUntil { appLog().contains("refresh task \(task)") }, "\(appLog())")
        let seen = try #require(remaining(in: appLog(), after: "refresh task "))
        #expect((20...30).contains(seen), "the task saw \(seen) s left")
        #expect(try Self.scheduled(second, id).contains { $0.identifier == task } == false, "a run request is done")
        // Unknown identifiers are refused with a reason.
        let unknown = try second.client().request(
            .simulateTask(TaskDebugRequest(bundle: BundleID(id), identifier: "nope"))
        ).body
        #expect(unknown.errorCode == .notFound, "\(unknown)")
    }

    @Test("an app that overruns its app-refresh window is warned, then terminated, and ps says why")
    func refreshOverrunTerminates() async throws {
        let (running, ids) = try await running(
            "refreshover", scheduling: "appRefreshWindow=3", apps: [("Overrunner", "refresh-overrun")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        let task = id + ".refresh"
        try await runOnce(running, id, until: "submitted \(task)")
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        let pid = try #require(try running.app(id).pid)
        let reply = try running.request(.simulateTask(TaskDebugRequest(bundle: BundleID(id), identifier: task)))
        guard case .done = reply else {
            Issue.record("simulate task: \(reply)")
            return
        }
        #expect(await waitUntil { running.appLog(id).contains("refresh task left running") }, "\(running.appLog(id))")
        // Ended, not suspended: the process is gone and the daemon says why.
        #expect(
            try await waitUntil(timeout: .seconds(20)) { try running.app(id).lastExit?.kind == .terminated },
            "\(running.daemon.log.suffix(2000))")
        let app = try running.app(id)
        #expect(app.pid == nil && app.state == .notRunning, "\(app)")
        #expect(app.lastExit?.reason == "app refresh task overran", "\(String(describing: app.lastExit))")
        #expect(kill(pid, 0) != 0, "the process \(pid) is still there")
        // It heard its expiration first.
        #expect(running.appLog(id).contains("refresh task expired"), "\(running.appLog(id))")
    }

    @Test(
        "a processing task waits for the device to be idle, runs once it is locked, and is expired when it is unlocked")
    func processingWaitsForIdle() async throws {
        var id = ""
        let running = try await Running(
            prefix: "idle", extraArguments: ["--scheduling", "idleBeforeProcessing=0,coalescingTolerance=0"]
        ) { bundles in
            id = try TestAppBundles.make(
                "Compacting", behavior: "processing", modes: ["processing"],
                taskIdentifiers: ["org.backgrounder.tests.compacting.processing"], into: bundles)
        }
        atTeardown { await running.tearDown() }
        let task = id + ".processing"
        try await runOnce(running, id, until: "submitted \(task)")
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        let pending = try Self.scheduled(running.daemon, id).first { $0.identifier == task }
        #expect(pending?.waitingFor.contains("idle") == true, "\(String(describing: pending))")
        try await Task.sleep(for: .seconds(1))
        #expect(!running.appLog(id).contains("processing task \(task)"), "it ran while the device was in use")

        _ = try running.request(.lock)
        #expect(await waitUntil { running.appLog(id).contains("processing task \(task)") }, "\(running.appLog(id))")
        #expect(try Self.scheduled(running.daemon, id).contains { $0.identifier == task && $0.running })

        _ = try running.request(.unlock)
        #expect(await waitUntil { running.appLog(id).contains("processing task expired") }, "\(running.appLog(id))")
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        #expect(try Self.scheduled(running.daemon, id).contains { $0.identifier == task } == false)
    }

    @Test(
        "BGTaskScheduler through BackgroundKit: submit replaces, pending lists, cancel and cancel all empty it; bad requests are refused with the reason"
    )
    func taskSchedulerAPI() async throws {
        let (running, ids) = try await running("taskapi", scheduling: "fetchWindow=30", apps: [("Planner", "task-api")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("pending after cancel all") }, "\(running.appLog(id))")
        let log = running.appLog(id)
        #expect(log.contains("first: submitted") && log.contains("again: submitted"), "\(log)")
        // The second submission replaced the first: one request, due in about two hours.
        let pending = try #require(log.split(separator: "\n").first { $0.hasPrefix("pending after submits: ") })
        #expect(pending == "pending after submits: \(id).refresh@119min" || pending.hasSuffix("@120min"), "\(pending)")
        #expect(log.contains("unlisted: refused") && log.contains("BGTaskSchedulerPermittedIdentifiers"), "\(log)")
        #expect(log.contains("far: refused") && log.contains("earliestBeginDate"), "\(log)")
        #expect(log.contains("no mode: refused"), "\(log)")
        #expect(log.contains("pending after cancel: 0"), "\(log)")
        #expect(log.contains("once more: submitted") && log.contains("pending after cancel all: 0"), "\(log)")
        #expect(try Self.scheduled(running.daemon, id).allSatisfy { $0.kind == "fetch" }, "nothing left but fetch")
    }

    /// What `TASKS` lists for one app.
    static func scheduled(_ daemon: DaemonProcess, _ id: String) throws -> [ScheduledWork] {
        guard case .schedule(let list) = try daemon.client().request(.tasks(ScheduleQuery(bundle: BundleID(id)))).body
        else {
            throw HarnessError("TASKS gave no schedule")
        }
        return list.entries
    }
}

extension DaemonMessage.Body {
    /// The code of an `ERROR` reply, or `nil`.
    var errorCode: ProtocolError.Code? {
        if case .error(let error) = self { error.code } else { nil }
    }

    /// The message of an `ERROR` reply, or "".
    var errorMessage: String {
        if case .error(let error) = self { error.message } else { "" }
    }
}

/// One app's fetch in the coalescing test: due since `earliest`, and seen by the daemon's
/// planner from `available` on (when it left the front).
struct CoalescedFetch: CustomStringConvertible {
    var earliest: Date
    var available: Date

    var description: String { "due \(earliest.timeIntervalSince1970), out of front \(available.timeIntervalSince1970)" }

    /// How many jobs each wake of the daemon's one timer starts, for fetches that become
    /// plannable at `available` (shifted by `shift` seconds): the timer waits for the first
    /// deadline (`earliest + tolerance`) of what it can see, and a fetch that leaves the front
    /// before that wake joins it.
    static func wakes(_ jobs: [CoalescedFetch], shiftingAvailability shift: Double, tolerance: Double) -> [Int] {
        var coming = jobs.map { CoalescedFetch(earliest: $0.earliest, available: $0.available + shift) }
            .sorted { $0.available < $1.available }
        var waiting: [CoalescedFetch] = []
        var wakes: [Int] = []
        while !coming.isEmpty || !waiting.isEmpty {
            guard let deadline = waiting.map({ $0.earliest + tolerance }).min() else {
                waiting.append(coming.removeFirst())
                continue
            }
            let wake = max(deadline, waiting.map(\.available).max() ?? deadline)
            if let next = coming.first, next.available < wake {
                waiting.append(coming.removeFirst())
                continue
            }
            wakes.append(waiting.count)
            waiting.removeAll()
        }
        return wakes
    }
}
