import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Apps that try to make the daemon hold too much, run on without checking in, or launch
/// a bundle that changed behind the daemon's back: each refused with the reason, and the
/// state, the CPU and the files checked afterwards.
@Suite("Hostile apps meet the daemon's limits", .timeLimit(.minutes(5)), .tearsDown)
struct HostileAppTests {
    typealias Running = LifecycleTests.Running

    private static func bgctl(_ arguments: [String], in directory: TemporaryDirectory) async throws -> (
        status: Int32?, output: String
    ) {
        let process = try ChildProcess(
            Locations.product("bgctl"), arguments,
            logPath: directory.appending("bgctl-\(UUID().uuidString.prefix(6)).log"))
        #expect(await process.waitForExit(timeout: .seconds(30)))
        return (process.terminationStatus, process.output)
    }

    @Test("task caps: a 300-byte name and the 33rd task are refused with the reason; a hostile name is escaped")
    func taskCapsAndEscaping() async throws {
        let script = """
            \(PythonAppBundles.checkIn)
            say("long " + json.dumps(request({"class": "BEGIN_TASK", "name": "x" * 300})))
            say("hostile " + json.dumps(request({"class": "BEGIN_TASK", "name": "\\x1b]0;pwned\\x07\\x1b[2J"})))
            for index in range(40):
                say("task %d %s" % (index, json.dumps(request({"class": "BEGIN_TASK", "name": "t%d" % index}))))
            say("began all")
            time.sleep(600)
            """
        let id = "org.backgrounder.tests.tasker"
        let running = try await Running(prefix: "tasks") { bundles in
            try PythonAppBundles.make("Tasker", script: script, into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("began all") }, "\(running.appLog(id))")

        let log = running.appLog(id)
        let lines = log.split(separator: "\n")
        #expect(log.contains("background task refused: the task name is 300 bytes long; the most is 256"))
        let refused = lines.filter { $0.hasPrefix("task ") && $0.contains("32 open background tasks") }
        #expect(refused.count == 9, "\(log)")
        // What the daemon holds, not only what it said: 32 tasks, the hostile one among them.
        let app = try running.app(id)
        #expect(app.assertions.filter { $0.hasPrefix("task:") }.count == 32, "\(app.assertions)")
        #expect(app.assertions.contains("task:\u{1b}]0;pwned\u{07}\u{1b}[2J"))

        // Neither the daemon's log nor bgctl's table lets the control sequences through.
        #expect(running.daemon.log.contains("]0;pwned"))
        #expect(!running.daemon.log.unicodeScalars.contains("\u{1b}"))
        #expect(running.daemon.log.contains("background task refused"))
        let ps = try await Self.bgctl(["ps", "--wide", "--socket", running.daemon.socketPath], in: running.directory)
        #expect(ps.status == 0)
        #expect(ps.output.contains("task:\\u{1B}]0;pwned\\u{7}\\u{1B}[2J"), "\(ps.output)")
        #expect(!ps.output.unicodeScalars.contains("\u{1b}"))
        #expect(!ps.output.unicodeScalars.contains("\u{07}"))
        #expect(running.daemon.isRunning)
    }

    @Test("a background launch that never checks in is suspended at the deadline; its CPU stops growing")
    func neverChecksIn() async throws {
        let id = "org.backgrounder.tests.silent"
        let running = try await Running(prefix: "silent", extraArguments: ["--check-in-deadline", "2"]) { bundles in
            // Busy, and never a word to the daemon.
            try PythonAppBundles.make(
                "Silent", script: "#!/usr/bin/python3\nwhile True:\n    pass\n", modes: ["fetch"], prelude: false,
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        guard case .done = try running.request(.wake(WakeRequest(bundle: BundleID(id), reason: .fetch))) else {
            Issue.record("fetch did not launch it")
            return
        }
        #expect(try running.app(id).state == .inactive)
        #expect(await waitUntil(timeout: .seconds(15)) { (try? running.app(id).state) == .suspended })
        // Read from the kernel, not from the daemon's ps: it spun until the deadline, its
        // cgroup is frozen, and over 2 s it gains no tick.
        let pid = try #require(try running.app(id).pid)
        #expect((SuspensionEvidence.ticks(pid) ?? 0) > 0, "it was busy until the deadline")
        #expect(await SuspensionEvidence.becomeFrozen(pid), "cgroup.events does not say frozen 1")
        let moved = await SuspensionEvidence.movement([pid])
        #expect(moved.isEmpty, "a suspended app ran: \(moved)")
        #expect(running.daemon.log.contains("suspended ("))
        // The control: opened, the same process is thawed and spins again.
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await SuspensionEvidence.advance([pid]), "thawed, it spins again: \(running.daemon.log.suffix(1500))")
        #expect(running.daemon.isRunning)
    }

    @Test(
        "remote commands for an app that has not checked in: 16 wait (and are told it did not answer), the rest are refused with the reason"
    )
    func remoteCommandQueueCap() async throws {
        let id = "org.backgrounder.tests.mute"
        let running = try await Running(prefix: "remote-cap", extraArguments: ["--check-in-deadline", "600"]) {
            bundles in
            try PythonAppBundles.make(
                "Mute", script: "#!/usr/bin/python3\nimport time\ntime.sleep(600)\n", modes: ["audio"], prelude: false,
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        // Each person's command is held until the app answers (it never does), so they are sent
        // side by side, each on its own connection and thread (a blocking request would hold
        // one of the few threads of the concurrency pool and send them one after another).
        let replies = await withTaskGroup(of: DaemonMessage.Body?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try? await onOwnThread {
                        try running.daemon.client(timeout: .seconds(30)).request(
                            .remoteCommand(RemoteCommandRequest(bundle: BundleID(id), command: .play))
                        ).body
                    }
                }
            }
            return await group.reduce(into: [DaemonMessage.Body]()) { if let reply = $1 { $0.append(reply) } }
        }
        let errors = replies.compactMap { if case .error(let error) = $0 { error } else { nil } }
        #expect(errors.count == 20, "\(replies)")
        let refused = errors.filter { $0.code == .limitReached }
        let unanswered = errors.filter { $0.code == .unavailable }
        #expect(refused.count == 4, "\(replies); daemon: \(running.daemon.log.suffix(3000))")
        #expect(unanswered.count == 16, "\(replies)")
        #expect(refused.allSatisfy { $0.message.contains("16 remote commands already wait for \(id) to check in") })
        #expect(
            unanswered.allSatisfy {
                $0.message == "\(id) did not answer play within 10 s (launched \(id) into the background for play)"
                    || $0.message == "\(id) did not answer play within 10 s (play waited for \(id) to check in)"
            }, "\(unanswered)")
        #expect(try running.app(id).state == .inactive)
        #expect(running.daemon.isRunning)
    }

    @Test("an app cannot answer another app's remote command: its answers are notFound and the person hears the truth")
    func answeringAnotherAppsCommand() async throws {
        let victim = "org.backgrounder.tests.victim"
        let intruder = "org.backgrounder.tests.intruder"
        let running = try await Running(prefix: "remote-hostile") { bundles in
            // Checks in and hears commands, but never answers them.
            try PythonAppBundles.make(
                "Victim",
                script: PythonAppBundles.checkIn + """

                    while True:
                        line = _stream.readline()
                        if not line:
                            break
                        say("heard " + line.decode().strip())
                    """, modes: ["audio"], into: bundles)
            // Answers every ticket it can guess with success, for 15 s, and reports what it was told.
            try PythonAppBundles.make(
                "Intruder",
                script: PythonAppBundles.checkIn + """

                    end = time.time() + 15
                    answers = set()
                    while time.time() < end:
                        for ticket in range(1, 8):
                            reply = request({"class": "REMOTE_COMMAND_STATUS", "ticket": ticket, "status": "success"})
                            answers.add(reply.get("code") or reply["class"])
                        time.sleep(0.1)
                    report("answers", sorted(answers))
                    time.sleep(600)
                    """, into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(victim))))
        #expect(await waitUntil { running.appLog(victim).contains("checkin ") })
        _ = try running.request(.open(OpenApp(bundle: BundleID(intruder))))
        #expect(await waitUntil { running.appLog(intruder).contains("checkin ") })

        let reply = try await running.daemon.request(
            .remoteCommand(RemoteCommandRequest(bundle: BundleID(victim), command: .nextTrack)))
        guard case .error(let error) = reply else {
            Issue.record("the intruder's answer was taken: \(reply); \(running.appLog(intruder))")
            return
        }
        #expect(error.code == .unavailable)
        #expect(error.message.hasPrefix("\(victim) did not answer nextTrack within 10 s"), "\(error)")
        #expect(running.appLog(victim).contains("nextTrack"), "the command reached the victim")
        let report = running.dataDirectory(intruder) + "/report.jsonl"
        #expect(
            await waitUntil(timeout: .seconds(20)) {
                (try? String(contentsOfFile: report, encoding: .utf8))?.contains(#"["notFound"]"#) == true
            }, "\((try? String(contentsOfFile: report, encoding: .utf8)) ?? "no report"); \(running.appLog(intruder))")
        #expect(running.daemon.isRunning)
    }

    @Test(
        "a bundle changed after validation is not launched: group-writable Info.plist, a symlinked or rewritten executable"
    )
    func revalidatedAtLaunch() async throws {
        let id = "org.backgrounder.tests.steady"
        let script = "#!/usr/bin/python3\nimport time\nprint('steady ran', flush=True)\ntime.sleep(600)\n"
        let running = try await Running(prefix: "revalidate") { bundles in
            // In a subdirectory, which the bundle watcher does not see: an edit there is
            // found only by the check at launch, not by a rescan racing it.
            try PythonAppBundles.make("Steady", script: script, prelude: false, executable: "bin/Steady", into: bundles)
        }
        atTeardown { await running.tearDown() }
        let bundle = running.bundles + "/Steady.bundle"
        let executable = bundle + "/bin/Steady"

        func expectRefused(_ reason: String, _ why: Comment) throws {
            let reply = try running.request(.open(OpenApp(bundle: BundleID(id))))
            guard case .error(let error) = reply else {
                Issue.record("\(why): open was not refused: \(reply)")
                return
            }
            #expect(error.message.contains(reason), "\(why): \(error.message)")
            // Not running; after a rescan that refused it, not even listed.
            let app = try? running.app(id)
            #expect(app == nil || (app?.pid == nil && app?.state == .notRunning), "\(why): \(String(describing: app))")
            #expect(!running.appLog(id).contains("steady ran"), "\(why): it ran")
        }

        // Group-writable Info.plist: refused at launch, and by the next scan too.
        chmod(bundle + "/Info.plist", 0o664)
        try expectRefused("writable", "group-writable Info.plist")
        _ = try running.request(.reload)
        try expectRefused("writable", "group-writable Info.plist after a reload")
        chmod(bundle + "/Info.plist", 0o644)
        _ = try running.request(.reload)

        // The executable swapped for a symlink to a script outside the bundle.
        let outside = running.directory.appending("outside.py")
        try PythonAppBundles.writeScript(script, to: outside)
        try FileManager.default.moveItem(atPath: executable, toPath: running.directory.appending("Steady.saved"))
        try FileManager.default.createSymbolicLink(atPath: executable, withDestinationPath: outside)
        try expectRefused("outside", "executable symlinked outside")
        try FileManager.default.removeItem(atPath: executable)
        try FileManager.default.moveItem(atPath: running.directory.appending("Steady.saved"), toPath: executable)

        // Rewritten in place, still valid: changed since it was validated.
        _ = try running.request(.reload)
        try PythonAppBundles.writeScript(script + "# changed\n", to: executable)
        try expectRefused("since the bundle was validated", "executable rewritten")
        #expect(running.daemon.log.contains("launch refused"))

        // Validated again, it launches.
        _ = try running.request(.reload)
        guard case .done = try running.request(.open(OpenApp(bundle: BundleID(id)))) else {
            Issue.record("the revalidated bundle did not launch: \(running.daemon.log.suffix(2000))")
            return
        }
        #expect(await waitUntil { running.appLog(id).contains("steady ran") })
    }
}
