import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Local notifications with real processes and no desktop: the log presenter shows them, a
/// person lists and activates them with `bgctl notifications`.
@Suite("Notifications with real processes", .timeLimit(.minutes(5)), .tearsDown)
struct NotificationTests {
    typealias Running = LifecycleTests.Running

    /// A daemon with one TestApp per behaviour.
    private func running(_ prefix: String, apps: [(name: String, behavior: String)]) async throws -> (
        Running, [String]
    ) {
        var ids: [String] = []
        let running = try await Running(prefix: prefix) { bundles in
            for app in apps { ids.append(try TestAppBundles.make(app.name, behavior: app.behavior, into: bundles)) }
        }
        return (running, ids)
    }

    static func grant(_ running: Running, _ id: String) throws {
        let reply = try running.request(.authorize(Authorize(bundle: BundleID(id), grant: .notifications(.granted))))
        guard case .done = reply else { throw HarnessError("authorize: \(reply)") }
    }

    static func list(_ running: Running, _ id: String) throws -> NotificationsList {
        let reply = try running.request(.notifications(NotificationsQuery(bundle: BundleID(id))))
        guard case .notifications(let list) = reply else { throw HarnessError("notifications: \(reply)") }
        return list
    }

    /// What a Python app reported, by key (the last value for each).
    static func reported(_ running: Running, _ id: String) -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for line in TrustBoundaryTests.report(running, id).split(separator: "\n") {
            guard let entry = try? JSONValue(text: String(line)), case .string(let key)? = entry["key"] else {
                continue
            }
            values[key] = entry["value"]
        }
        return values
    }

    static func bgctl(_ running: Running, _ arguments: [String]) async throws -> (status: Int32?, output: String) {
        try await BGCtlTests.bgctl(arguments + ["--socket", running.daemon.socketPath], in: running.directory)
    }

    @Test("a force-quit app's notification is delivered at its time; activating it launches the app with the response")
    func deliveredAfterForceQuitThenActivated() async throws {
        let (running, ids) = try await running("notifyquit", apps: [("Notifier", "notify-3")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        try Self.grant(running, id)
        // Following from before the app adds its reminder, which is due 3 s later.
        // A person at a terminal follows deliveries, as a script would: one JSON object a line.
        let follower = try ChildProcess(
            Locations.product("bgctl"), ["notifications", "--follow", "--json", "--socket", running.daemon.socketPath],
            logPath: running.directory.appending("follow.log"))
        atTeardown { _ = await follower.stop(grace: .seconds(1)) }
        #expect(
            await waitUntil { follower.output.contains("following every app's notifications") }, "\(follower.output)")
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("added reminder") }, "\(running.appLog(id))")
        #expect(running.appLog(id).contains("notifications granted true"))
        _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .notRunning })

        // Delivered with the app not running: bgctl lists it, the app's log shows it.
        let delivered = await waitUntil {
            let json = try? await Self.bgctl(running, ["notifications", id, "--json"])
            guard let output = json?.output,
                let list = try? CLIJSON.decode(NotificationsList.self, "notifications", from: output)
            else { return false }
            return list.delivered.map(\.request.identifier) == ["reminder"] && list.pending.isEmpty
        }
        #expect(delivered, "\(String(describing: try? Self.list(running, id))) \(running.daemon.log)")
        #expect(running.appLog(id).contains("notification reminder (log:"), "\(running.appLog(id))")
        #expect(running.appLog(id).contains("Reminder: Tea is ready"))
        #expect(try running.app(id).state == .notRunning, "firing a notification never launches the app")
        let firstDelivery = try #require(try Self.list(running, id).delivered.first?.date)
        // The follower printed it as it was delivered.
        #expect(await waitUntil { follower.output.contains("\"notification\":{") }, "\(follower.output)")
        let notice = try #require(
            follower.output.split(separator: "\n").compactMap { line in
                try? CLIJSON.decode(DeliveredNotice.self, "notification", from: String(line))
            }.first, "\(follower.output)")
        #expect(notice.bundle.rawValue == id && notice.notification.request.identifier == "reminder")
        #expect(notice.notification.request.content.title == "Reminder" && notice.notification.date == firstDelivery)

        // Refused while the screen is locked, the action leaves the notification delivered.
        _ = try running.request(.lock)
        let refused = try await Self.bgctl(running, ["notifications", id, "activate", "reminder"])
        #expect(refused.status != 0 && refused.output.contains("locked"), "\(refused.output)")
        #expect(try Self.list(running, id).delivered.map(\.request.identifier) == ["reminder"])
        _ = try running.request(.unlock)

        // A person acts on it: the app is launched in front and hears the response.
        let activated = try await Self.bgctl(running, ["notifications", id, "activate", "reminder"])
        #expect(activated.status == 0, "\(activated.output)")
        let responseFile = running.dataDirectory(id) + "/response.json"
        let response = { (try? String(contentsOfFile: responseFile, encoding: .utf8)) ?? "" }
        #expect(await waitUntil { !response().isEmpty }, "\(running.appLog(id))")
        let got = try JSONValue(text: response())
        #expect(got["identifier"] == .string("reminder"))
        #expect(got["action"] == .string(NotificationAction.default))
        #expect(got["userInfo"] == .object(["cup": .number(2)]))
        #expect(try running.app(id).state == .active)
        // Acted on, it leaves the delivered list. (Opened by a person, the app adds a new
        // reminder, which a loaded machine may already have delivered: only the first counts.)
        #expect(try !Self.list(running, id).delivered.contains { $0.date == firstDelivery })
    }

    @Test("pending requests survive a daemon restart")
    func pendingSurvivesRestart() async throws {
        let directory = try TemporaryDirectory(prefix: "notifyrestart")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        let id = try TestAppBundles.make("Patient", behavior: "notify-600", into: bundles)
        let first = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: LifecycleTests.fastPolicy)
        _ = try first.client().request(.authorize(Authorize(bundle: BundleID(id), grant: .notifications(.granted))))
        _ = try first.client().request(.open(OpenApp(bundle: BundleID(id))))
        let log = directory.appending("state/logs/\(id).log")
        let appLog = { AppLogFile.text(atPath: log) ?? "" }
        #expect(await waitUntil { appLog().contains("added reminder") }, "\(appLog())")
        func pending(_ daemon: DaemonProcess) throws -> [PendingNotification] {
            guard
                case .notifications(let list) = try daemon.client().request(
                    .notifications(NotificationsQuery(bundle: BundleID(id)))
                ).body
            else { return [] }
            return list.pending
        }
        let before = try pending(first)
        #expect(before.map(\.request.identifier) == ["reminder"])
        #expect(await first.stop())

        let second = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: LifecycleTests.fastPolicy)
        atTeardown { await second.stop() }
        let after = try pending(second)
        #expect(after == before, "\(after) \(second.log)")
        #expect(after.first?.request.content.userInfo == ["cup": .number(2)])
    }

    @Test("an app in front is asked willPresent, and the notification is shown as it answers")
    func foregroundAppIsAsked() async throws {
        let (running, ids) = try await running("notifyfront", apps: [("Front", "notify-1")])
        atTeardown { await running.tearDown() }
        let id = ids[0]
        try Self.grant(running, id)
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("willPresent reminder") }, "\(running.appLog(id))")
        #expect(
            try await waitUntil { try Self.list(running, id).delivered.map(\.request.identifier) == ["reminder"] },
            "\(running.daemon.log)")
        #expect(await waitUntil { running.appLog(id).contains("notification reminder (log:") })
    }

    @Test("an app in front that does not answer willPresent within a second is not shown the notification")
    func unansweredWillPresent() async throws {
        var id = ""
        let running = try await Running(prefix: "notifysilent") { bundles in
            id = try PythonAppBundles.make(
                "Silent",
                script: """
                    \(PythonAppBundles.checkIn)
                    report("add", request({"class": "NOTIFICATION_ADD", "identifier": "now", "content": {"title": "x"}}))
                    time.sleep(2.5)
                    request({"class": "NOTIFICATION_LIST", "list": "delivered"})
                    report("notices", [notice.get("class") for notice in _queued])
                    report("late answer", request({"class": "NOTIFICATION_PRESENTATION", "request": "now",
                                                   "options": ["banner"]}))
                    report("done", True)
                    while True:
                        time.sleep(1)
                    """,
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        try Self.grant(running, id)
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { TrustBoundaryTests.report(running, id).contains("\"done\"") })
        let values = Self.reported(running, id)
        #expect(values["add"]?["class"] == .string("OK"), "\(values)")
        let notices = values["notices"].flatMap { notices -> [JSONValue]? in
            guard case .array(let notices) = notices else { return nil }
            return notices
        }
        #expect(notices?.filter { $0 == .string("NOTIFICATION_WILL_PRESENT") }.count == 1, "\(values)")
        #expect(values["late answer"]?["code"] == .string("notFound"), "an answer after the wait shows nothing")
        #expect(running.daemon.log.contains("did not answer willPresent in time"), "\(running.daemon.log)")
        let list = try Self.list(running, id)
        #expect(list.delivered.isEmpty && list.pending.isEmpty, "\(list)")
        #expect(!running.appLog(id).contains("notification now (log:"))
    }

    @Test("an app cannot add without a grant, exceed 64 pending, touch another app's notifications, or act as a person")
    func hostileApp() async throws {
        var victim = ""
        var attacker = ""
        var ungranted = ""
        let running = try await Running(prefix: "notifyhostile") { bundles in
            victim = try TestAppBundles.make("Victim", behavior: "notify-600", into: bundles)
            let request =
                #"{"class": "NOTIFICATION_ADD", "identifier": "n%d", "content": {"title": "spam"}, "trigger": {"type": "timeInterval", "seconds": 600}}"#
            attacker = try PythonAppBundles.make(
                "Spammer",
                script: """
                    \(PythonAppBundles.checkIn)
                    victim = "org.backgrounder.tests.victim"
                    line = '\(request)'
                    results = [request(json.loads(line % n)).get("class") for n in range(64)]
                    report("adds", results)
                    report("65th", request(json.loads(line % 64)))
                    report("replace", request(json.loads(line % 3)))
                    report("short repeat", request({"class": "NOTIFICATION_ADD", "identifier": "r",
                        "content": {"title": "x"}, "trigger": {"type": "timeInterval", "seconds": 30, "repeats": True}}))
                    report("remove victim's", request({"class": "NOTIFICATION_REMOVE", "list": "pending", "identifiers": ["reminder"]}))
                    report("list", request({"class": "NOTIFICATION_LIST", "list": "pending"}))
                    report("present victim's", request({"class": "NOTIFICATION_PRESENTATION", "request": "reminder", "options": ["banner"]}))
                    for attempt in [{"class": "NOTIFICATIONS", "bundle": victim},
                                    {"class": "NOTIFICATION_ACTIVATE", "bundle": victim, "request": "reminder"},
                                    {"class": "AUTHORIZE", "bundle": BUNDLE, "service": "notifications", "level": "granted"}]:
                        report("own " + attempt["class"], request(attempt))
                        report("public " + attempt["class"], public(attempt))
                    report("done", True)
                    while True:
                        time.sleep(1)
                    """,
                into: bundles)
            ungranted = try PythonAppBundles.make(
                "Ungranted",
                script: """
                    \(PythonAppBundles.checkIn)
                    report("asked", request({"class": "NOTIFICATION_AUTHORIZATION", "options": ["alert"]}))
                    report("add", request({"class": "NOTIFICATION_ADD", "identifier": "a", "content": {"title": "x"}}))
                    report("done", True)
                    while True:
                        time.sleep(1)
                    """,
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        try Self.grant(running, victim)
        try Self.grant(running, attacker)
        _ = try running.request(.open(OpenApp(bundle: BundleID(victim))))
        #expect(await waitUntil { running.appLog(victim).contains("added reminder") }, "\(running.appLog(victim))")

        _ = try running.request(.open(OpenApp(bundle: BundleID(attacker))))
        #expect(
            await waitUntil { TrustBoundaryTests.report(running, attacker).contains("\"done\"") },
            "\(running.appLog(attacker))")
        let report = TrustBoundaryTests.report(running, attacker)
        let values = Self.reported(running, attacker)
        // 64 are taken, the 65th is not; replacing one of the 64 is.
        #expect(try Self.list(running, attacker).pending.count == 64, "\(report)")
        #expect(values["adds"] == .array(Array(repeating: .string("OK"), count: 64)), "\(report)")
        #expect(values["65th"]?["code"] == .string("limitReached"), "\(report)")
        #expect(values["replace"]?["class"] == .string("OK"), "\(report)")
        #expect(values["short repeat"]?["code"] == .string("badRequest"), "\(report)")
        #expect(report.contains("trigger.seconds: a repeating interval must be at least 60 s"), "\(report)")
        // The victim's request is untouched and unseen.
        #expect(try Self.list(running, victim).pending.map(\.request.identifier) == ["reminder"])
        #expect(!report.contains(#""identifier": "reminder""#), "the attacker saw the victim's request")
        for request in ["NOTIFICATIONS", "NOTIFICATION_ACTIVATE", "AUTHORIZE"] {
            #expect(running.daemon.log.contains("refused \(request) from the app \(attacker)"), "\(request)")
        }
        #expect(!running.appLog(victim).contains("response "), "the attacker activated the victim's notification")

        // Without a grant: asking is logged for a person, adding is refused.
        _ = try running.request(.open(OpenApp(bundle: BundleID(ungranted))))
        #expect(await waitUntil { TrustBoundaryTests.report(running, ungranted).contains("\"done\"") })
        let refused = Self.reported(running, ungranted)
        #expect(refused["asked"]?["status"] == .string("notDetermined"), "\(refused)")
        #expect(refused["add"]?["code"] == .string("notAuthorized"), "\(refused)")
        // The person is asked: a prompt waits, with the app's options as its reason.
        guard case .prompts(let waiting) = try running.request(.prompts) else {
            Issue.record("no PROMPTS")
            return
        }
        let prompt = try #require(waiting.prompts.first { $0.bundle.rawValue == ungranted }, "\(waiting)")
        #expect(
            prompt.service == .notifications && prompt.usage == "to show alert" && prompt.choices == ["allow", "deny"])
        #expect(running.daemon.log.contains("bgctl answer \(prompt.id) allow|deny"), "\(running.daemon.log)")
        #expect(try Self.list(running, ungranted).pending.isEmpty)
    }
}
