import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// A hostile app against the scheduler: it tries to push to, launch, expire, read and cancel
/// another app's work, and to end another app's event window. Judged by the victim's state,
/// log and pending requests, not by the replies the attacker got.
@Suite("Scheduling against a hostile app", .timeLimit(.minutes(5)), .tearsDown)
struct HostileSchedulingTests {
    typealias Running = LifecycleTests.Running

    @Test("an app cannot push to, launch, expire or list another app's work, nor close its window")
    func meddlingWithOthersWork() async throws {
        var victim = ""
        var attacker = ""
        let running = try await Running(prefix: "hostsched", extraArguments: ["--scheduling", "fetchWindow=3600"]) {
            bundles in
            victim = try TestAppBundles.make(
                "Target", behavior: "refresh", modes: ["fetch", "remote-notification"],
                taskIdentifiers: ["org.backgrounder.tests.target.refresh"], into: bundles)
            attacker = try PythonAppBundles.make(
                "Schemer",
                script: """
                    \(PythonAppBundles.checkIn)
                    victim = "org.backgrounder.tests.target"
                    task = victim + ".refresh"
                    payload = {"aps": {"content-available": 1}, "from": "attacker"}
                    attempts = [
                        {"class": "PUSH", "bundle": victim, "payload": payload},
                        {"class": "SIMULATE_TASK", "bundle": victim, "identifier": task},
                        {"class": "EXPIRE_TASK", "bundle": victim, "identifier": task},
                        {"class": "TASKS", "bundle": victim},
                    ]
                    for attempt in attempts:
                        report("own " + attempt["class"], request(attempt))
                        report("public " + attempt["class"], public(attempt))
                    # Window numbers are small integers: try to end every one of them.
                    for window in range(0, 64):
                        report("complete %d" % window, request({"class": "COMPLETE", "window": window, "result": "newData"}))
                    report("submit", request({"class": "SUBMIT_TASK", "identifier": task, "kind": "appRefresh"}))
                    report("cancel one", request({"class": "CANCEL_TASKS", "identifier": task}))
                    report("cancel all", request({"class": "CANCEL_TASKS"}))
                    report("negative interval", request({"class": "SET_FETCH_INTERVAL", "interval": -5}))
                    token = request({"class": "REGISTER_PUSH"})
                    report("token", token)
                    report("push own token", public({"class": "PUSH", "token": token.get("token", ""), "payload": payload}))
                    report("done", True)
                    while True:
                        time.sleep(1)
                    """,
                modes: ["fetch", "remote-notification"],
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        let task = victim + ".refresh"

        // The victim asks for a refresh, goes home, and is woken for a fetch it leaves open.
        _ = try running.request(.open(OpenApp(bundle: BundleID(victim))))
        #expect(await waitUntil { running.appLog(victim).contains("submitted \(task)") })
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(victim).state == .suspended })
        _ = try running.request(.wake(WakeRequest(bundle: BundleID(victim), reason: .fetch)))
        #expect(await waitUntil { running.appLog(victim).contains("fetch left open") })

        _ = try running.request(.open(OpenApp(bundle: BundleID(attacker))))
        #expect(
            await waitUntil { TrustBoundaryTests.report(running, attacker).contains("\"done\"") },
            "\(running.appLog(attacker))")

        // The victim's window is still open: it runs in the background, not suspended.
        #expect(try running.app(victim).state == .background, "the attacker ended the victim's fetch window")
        // It heard no push and ran no task; its request is still pending.
        #expect(!running.appLog(victim).contains("push "), "\(running.appLog(victim))")
        #expect(!running.appLog(victim).contains("refresh task"), "\(running.appLog(victim))")
        #expect(try SchedulingTests.scheduled(running.daemon, victim).contains { $0.identifier == task })
        for request in ["PUSH", "SIMULATE_TASK", "EXPIRE_TASK", "TASKS"] {
            #expect(running.daemon.log.contains("refused \(request) from the app \(attacker)"), "\(request)")
        }
        // Its own request for the victim's identifier was refused: nothing pending for it.
        #expect(try SchedulingTests.scheduled(running.daemon, attacker).allSatisfy { $0.identifier != task })
    }

    @Test("a completion sent twice, or after its window ran out, is refused as notFound and changes nothing")
    func lateAndRepeatedCompletions() async throws {
        var id = ""
        let running = try await Running(prefix: "twice", extraArguments: ["--scheduling", "fetchWindow=2"]) { bundles in
            id = try PythonAppBundles.make(
                "Twice",
                script: """
                    \(PythonAppBundles.checkIn)
                    request({"class": "SET_FETCH_INTERVAL", "interval": "minimum"})

                    def next_notice(kind, test):
                        while True:
                            message = json.loads(_stream.readline())
                            if message.get("class") == kind and test(message):
                                return message

                    first = next_notice("EVENT", lambda m: m.get("window") is not None)
                    # Both lines at once: the daemon reads the second after the first suspended us.
                    complete = {"class": "COMPLETE", "window": first["window"], "result": "newData"}
                    _stream.write((json.dumps(dict(complete, id="a")) + "\\n" + json.dumps(dict(complete, id="b")) + "\\n").encode())
                    _stream.flush()
                    replies = {}
                    # The test's second wake may come before the second reply: keep its event.
                    early = []
                    while len(replies) < 2:
                        message = json.loads(_stream.readline())
                        if message.get("id") in ("a", "b"):
                            replies[message["id"]] = message
                        elif message.get("class") == "EVENT" and message.get("window") is not None:
                            early.append(message)
                    report("twice", replies)
                    second = early[0] if early else next_notice("EVENT", lambda m: m.get("window") is not None)
                    report("second window", second["window"])
                    # Left to run out; completed only once the person opens the app.
                    next_notice("LIFECYCLE", lambda m: m.get("event") == "didBecomeActive")
                    report("late", request({"class": "COMPLETE", "window": second["window"], "result": "newData"}))
                    report("done", True)
                    while True:
                        time.sleep(1)
                    """,
                modes: ["fetch"],
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        let report = { TrustBoundaryTests.report(running, id) }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .active })
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).state == .suspended })

        _ = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .fetch)))
        #expect(try await waitUntil { try running.app(id).state == .suspended }, "completed: suspended at once")
        _ = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .fetch)))
        #expect(await waitUntil { report().contains("second window") }, "\(report()) \(running.appLog(id))")
        #expect(await waitUntil { running.daemon.log.contains("closed before the app completed it") })
        #expect(try await waitUntil { try running.app(id).state == .suspended })

        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { report().contains("\"done\"") }, "\(report()) \(running.appLog(id))")
        let lines = report().split(separator: "\n")
        let twice = try #require(lines.first { $0.contains("\"twice\"") })
        #expect(twice.components(separatedBy: "\"class\": \"OK\"").count == 2, "one completion took: \(twice)")
        #expect(twice.contains("notFound"), "the second was refused: \(twice)")
        let late = try #require(lines.first { $0.contains("\"late\"") })
        #expect(late.contains("notFound"), "\(late)")
        #expect(try running.app(id).state == .active, "a late completion does not suspend an app in front")
    }
}
