import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The desktop over D-Bus, against real `dbus-daemon`s the tests start: logind's screen lock
/// (a stand-in logind on a bus playing the system bus), UnifiedPush (a test distributor), and
/// a daemon with no bus at all.
@Suite("The desktop over D-Bus", .enabled(if: SessionBus.isAvailable), .timeLimit(.minutes(5)), .tearsDown)
struct DesktopBusTests {
    typealias Running = LifecycleTests.Running

    private static func testApp(_ name: String, behavior: String, modes: [String]) -> (String) throws -> Void {
        { bundles in _ = try TestAppBundles.make(name, behavior: behavior, modes: modes, into: bundles) }
    }

    // MARK: Screen lock

    /// A daemon whose system bus is a private dbus-daemon with the logind stand-in on it.
    struct LogindFixture {
        let directory: TemporaryDirectory
        let system: SessionBus
        let logind: LogindPeer
        let running: Running

        /// Starts it; with `lockedAtStart` the session is locked before the daemon first looks.
        static func start(
            _ prefix: String, lockedAtStart: Bool = false, extraArguments: [String] = [],
            setUp: (String) throws -> Void
        ) async throws -> LogindFixture {
            let directory = try TemporaryDirectory(prefix: prefix)
            let system = try await SessionBus(directory: directory, name: "system")
            let logind = try await LogindPeer(bus: system, directory: directory)
            if lockedAtStart { try await logind.setLockedHint(true) }
            let running = try await Running(
                prefix: prefix + "-daemon", extraArguments: extraArguments, environment: logind.environment,
                setUp: setUp)
            let fixture = LogindFixture(directory: directory, system: system, logind: logind, running: running)
            #expect(
                await waitUntil {
                    (try? running.daemon.status().desktop?.screenLock)?.contains(LogindPeer.sessionPath) == true
                }, "the daemon follows the session: \(running.daemon.log.suffix(2000))")
            return fixture
        }

        func tearDown() async {
            await running.tearDown()
            await logind.stop()
            // The bus before its directory: dbus-daemon unlinks its socket as it goes.
            await system.stop()
            directory.remove()
        }
    }

    @Test("logind's Lock and Unlock signals and its LockedHint move the foreground app")
    func logindLockMovesForegroundApp() async throws {
        let fixture = try await LogindFixture.start(
            "logind", setUp: Self.testApp("Front", behavior: "idle", modes: ["fetch"]))
        atTeardown { await fixture.tearDown() }
        let (running, logind) = (fixture.running, fixture.logind)
        let id = "org.backgrounder.tests.front"
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .active })

        try await logind.lock()
        #expect(try await waitUntil { try running.app(id).state != .active })
        #expect(try [.background, .suspended].contains(running.app(id).state))
        try await logind.unlock()
        #expect(try await waitUntil { try running.app(id).state == .active })

        // A screen locker that sets the hint instead of answering the signals.
        try await logind.setLockedHint(true)
        #expect(try await waitUntil { try running.app(id).state != .active })
        try await logind.setLockedHint(false)
        #expect(try await waitUntil { try running.app(id).state == .active })
    }

    @Test(
        "Lock and Unlock forged by another peer on the system bus, broadcast or sent to the daemon alone, move nothing")
    func forgedLockSignalsMoveNothing() async throws {
        let fixture = try await LogindFixture.start(
            "logindforge", setUp: Self.testApp("Front", behavior: "idle", modes: ["fetch"]))
        atTeardown { await fixture.tearDown() }
        let (running, logind) = (fixture.running, fixture.logind)
        let id = "org.backgrounder.tests.front"
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .active })

        // Any peer may send a signal: with logind's path and interface, to everyone and to
        // the daemon's own connection (found by its pid), which no match rule of the bus's filters.
        func forge(_ member: String) async throws {
            let forged = try await BusTool.run(
                DBusPeerProcess.python,
                [
                    "-c",
                    """
                    import dbus, sys
                    address, path, member, daemon = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
                    bus = dbus.bus.BusConnection(address)
                    control = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.freedesktop.DBus")
                    targets = [None] + [name for name in control.ListNames()
                                        if name.startswith(":") and control.GetConnectionUnixProcessID(name) == daemon]
                    for target in targets:
                        signal = dbus.lowlevel.SignalMessage(path, "org.freedesktop.login1.Session", member)
                        if target:
                            signal.set_destination(target)
                        bus.send_message(signal)
                    bus.flush()
                    print(len(targets) - 1)
                    """,
                    fixture.system.address, LogindPeer.sessionPath, member, "\(running.daemon.pid)",
                ])
            #expect(forged.status == 0 && forged.output.hasPrefix("1"), "\(forged.output)")
        }
        try await forge("Lock")
        #expect(
            await waitUntil { running.daemon.log.contains("Lock from :") }, "\(running.daemon.log.suffix(2000))")
        #expect(try running.app(id).state == .active, "a forged Lock moved the foreground app")

        // Locked by logind, a forged Unlock does not bring the app back.
        try await logind.lock()
        #expect(try await waitUntil { try running.app(id).state != .active })
        try await forge("Unlock")
        #expect(await waitUntil { running.daemon.log.contains("Unlock from :") })
        #expect(try running.app(id).state != .active, "a forged Unlock brought the app back")
        try await logind.unlock()
        #expect(try await waitUntil { try running.app(id).state == .active })
    }

    @Test("locked since boot, a push for an app that is not running waits for the first unlock, then launches it")
    func backgroundLaunchWaitsForFirstUnlock() async throws {
        let fixture = try await LogindFixture.start(
            "firstunlock", lockedAtStart: true, extraArguments: ["--scheduling", "pushWindow=30"],
            setUp: Self.testApp("Waiting", behavior: "push", modes: ["remote-notification"]))
        atTeardown { await fixture.tearDown() }
        let (running, logind) = (fixture.running, fixture.logind)
        let id = "org.backgrounder.tests.waiting"
        #expect(await waitUntil { running.daemon.log.contains("background launches wait for the first unlock") })

        let payload = JSONValue.object(["aps": .object(["content-available": .number(1)]), "n": .number(3)])
        guard case .pushed(let result) = try running.request(.push(PushRequest(bundle: BundleID(id), payload: payload)))
        else {
            Issue.record("the push was refused")
            return
        }
        #expect(result.detail.contains("after the first unlock"), "\(result.detail)")
        try await Task.sleep(for: .seconds(2))
        #expect(try running.app(id).state == .notRunning, "nothing launches before the first unlock")

        try await logind.setLockedHint(false)
        #expect(
            await waitUntil { running.appLog(id).contains(#"push {"aps":{"content-available":1},"n":3}"#) },
            "\(running.appLog(id))\n\(running.daemon.log.suffix(2000))")
    }

    // MARK: Notifications

    @Test(
        "a force-quit app's notification reaches the desktop's server at its time; a click launches the app with the response; the click forged by another peer opens nothing"
    )
    func notificationOnTheDesktop() async throws {
        let directory = try TemporaryDirectory(prefix: "desktopnotify")
        // The bus first, then the directory: dbus-daemon unlinks its socket as it goes.
        atTeardown { directory.remove() }
        let bus = try await SessionBus(directory: directory)
        atTeardown { await bus.stop() }
        let server = try await NotificationServerPeer(bus: bus, directory: directory)
        atTeardown { await server.stop() }
        let running = try await Running(
            prefix: "desktopnotify-daemon", environment: bus.environment,
            setUp: Self.testApp("Notifier", behavior: "notify-3", modes: []))
        atTeardown { await running.tearDown() }
        let id = "org.backgrounder.tests.notifier"
        #expect(
            await waitUntil {
                (try? running.daemon.status().desktop?.notifications) == "Backgrounder test notifications 1.0"
            })
        try NotificationTests.grant(running, id)
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("added reminder") }, "\(running.appLog(id))")
        _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .notRunning })

        let shown = try #require(
            await server.waitForNotification { $0.summary == "Reminder" }, "\(running.daemon.log.suffix(3000))")
        #expect(shown.body == "Tea is ready")
        #expect(shown.appName == "Notifier")
        #expect(shown.actionKeys == ["default"])
        #expect(shown.hintTypes["urgency"] == "y")
        #expect(try running.app(id).state == .notRunning, "showing a notification never launches the app")
        #expect(try NotificationTests.list(running, id).delivered.first?.presenter == String(shown.id))

        // Any peer can emit a signal with the server's path and interface: a forged click on
        // the same id is ignored (the real click below, on that id, proves it would count).
        let responseFile = running.dataDirectory(id) + "/response.json"
        let response = { (try? String(contentsOfFile: responseFile, encoding: .utf8)) ?? "" }
        // A client of the bus (registered, with a name of its own), as python3-dbus makes one:
        // gdbus and dbus-send given an address skip Hello, and the bus drops what they send.
        let forged = try await BusTool.run(
            DBusPeerProcess.python,
            [
                "-c",
                """
                import dbus, sys
                bus = dbus.bus.BusConnection(sys.argv[1])
                signal = dbus.lowlevel.SignalMessage(sys.argv[2], "org.freedesktop.Notifications", "ActionInvoked")
                signal.append(dbus.UInt32(int(sys.argv[3])), "default")
                bus.send_message(signal)
                bus.flush()
                print(bus.get_unique_name())
                """,
                bus.address, NotificationServerPeer.path, "\(shown.id)",
            ])
        #expect(forged.status == 0, "\(forged.output)")
        #expect(
            await waitUntil { running.daemon.log.contains("ActionInvoked from :") },
            "\(running.daemon.log.suffix(2000))")
        #expect(try running.app(id).state == .notRunning, "a forged click launched the app")
        #expect(response().isEmpty)

        // The person clicks it: the app is launched in front and hears the response.
        try await server.invokeAction(id: shown.id)
        #expect(await waitUntil { !response().isEmpty }, "\(running.appLog(id))\n\(running.daemon.log.suffix(2000))")
        let got = try JSONValue(text: response())
        #expect(got["identifier"] == .string("reminder"))
        #expect(got["action"] == .string(NotificationAction.default))
        #expect(try running.app(id).state == .active)

        // Opened by a person, the app added its reminder again; dismissed on the desktop, it
        // leaves the delivered list.
        let second = try #require(await server.waitForNotification { $0.summary == "Reminder" && $0.id != shown.id })
        #expect(
            try await waitUntil {
                try NotificationTests.list(running, id).delivered.first?.presenter == String(second.id)
            })
        try await server.dismiss(id: second.id)
        #expect(try await waitUntil { try NotificationTests.list(running, id).delivered.isEmpty })

        // Another client's notification, clicked, opens nothing of ours.
        try await bus.call(
            destination: NotificationServerPeer.name, path: NotificationServerPeer.path,
            method: "org.freedesktop.Notifications.Notify", signature: "susssasa{sv}i",
            "other", "0", "", "Elsewhere", "", "2", "default", "Open", "0", "-1")
        let other = try #require(await server.waitForNotification { $0.summary == "Elsewhere" })
        _ = try running.request(.home)
        try await server.invokeAction(id: other.id)
        try await Task.sleep(for: .seconds(1))
        #expect(try running.app(id).state != .active)
    }

    // MARK: UnifiedPush

    @Test("an app with a device token is registered with the distributor, and its messages arrive as silent pushes")
    func unifiedPushMessageWakesApp() async throws {
        let directory = try TemporaryDirectory(prefix: "unifiedpush")
        // The bus first, then the directory: dbus-daemon unlinks its socket as it goes.
        atTeardown { directory.remove() }
        let bus = try await SessionBus(directory: directory)
        atTeardown { await bus.stop() }
        let distributor = try await PushDistributorPeer(bus: bus, directory: directory)
        atTeardown { await distributor.stop() }
        let running = try await Running(
            prefix: "unifiedpush-daemon", extraArguments: ["--scheduling", "pushWindow=30"],
            environment: bus.environment,
            setUp: Self.testApp("Pushed", behavior: "push", modes: ["remote-notification"]))
        atTeardown { await running.tearDown() }
        let id = "org.backgrounder.tests.pushed"
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("device token ") })
        let token = try #require(
            running.appLog(id).split(separator: "\n").first { $0.hasPrefix("device token ") }.map {
                String($0.dropFirst(13))
            })
        _ = try running.request(.home)

        let registration = try #require(await distributor.waitForRegistration { $0.token == token })
        #expect(registration.service == "org.backgrounder.Push.org.backgrounder.tests.pushed")
        #expect(registration.description == id)
        #expect(
            await waitUntil {
                running.daemon.log.contains("UnifiedPush: \(id)'s endpoint is \(PushDistributorPeer.endpointPrefix)")
            })
        #expect(try running.daemon.status().desktop?.unifiedPush == "distributor \(PushDistributorPeer.name)")
        // The app hears its endpoint, to hand to its server.
        let endpoint = try await distributor.endpoint(token: token)
        #expect(await waitUntil { running.appLog(id).contains("push endpoint \(endpoint)") }, "\(running.appLog(id))")
        #expect(try await waitUntil(timeout: .seconds(30)) { try running.app(id).state == .suspended })

        // A JSON push payload passes as it is and wakes the suspended app.
        try await distributor.send(token: token, message: Array(#"{"aps":{"content-available":1},"n":7}"#.utf8))
        #expect(
            await waitUntil { running.appLog(id).contains(#"push {"aps":{"content-available":1},"n":7}"#) },
            "\(running.appLog(id))\n\(running.daemon.log.suffix(2000))")
        // Anything else is carried whole.
        try await distributor.send(token: token, message: Array("ping".utf8), id: "m2")
        #expect(await waitUntil { running.appLog(id).contains(#""message":"ping""#) })

        // Another peer on the bus is not the distributor: its "push" is refused and reaches no app.
        await #expect(throws: BusCallError.self) {
            try await bus.call(
                destination: registration.service, path: "/org/unifiedpush/Connector",
                method: "org.unifiedpush.Connector1.Message", signature: "says", token, "2", "104", "105", "forged")
        }
        try await Task.sleep(for: .seconds(1))
        #expect(!running.appLog(id).contains("forged"))
        #expect(!running.appLog(id).contains(#""message":"hi""#))
        #expect(running.daemon.log.contains("not the distributor"))
    }

    @Test("with no distributor installed, bgctl status says so")
    func noDistributor() async throws {
        let directory = try TemporaryDirectory(prefix: "nodistributor")
        // The bus first, then the directory: dbus-daemon unlinks its socket as it goes.
        atTeardown { directory.remove() }
        let bus = try await SessionBus(directory: directory)
        atTeardown { await bus.stop() }
        let running = try await Running(
            prefix: "nodistributor-daemon", environment: bus.environment,
            setUp: Self.testApp("Lonely", behavior: "push", modes: ["remote-notification"]))
        atTeardown { await running.tearDown() }
        #expect(
            await waitUntil {
                (try? running.daemon.status().desktop?.unifiedPush)?.contains("no UnifiedPush distributor") == true
            })
        #expect(try running.daemon.status().desktop?.sessionBus.state == .connected)
    }

    // MARK: Hostile apps

    /// Python for an app that tries the session bus at `socketPath` as any of the person's
    /// programs would: `attempt()` returns `accepted` once the bus answered its Hello, else
    /// what refused it. It authenticates as its uid (`EXTERNAL`), or `anonymous`ly where the
    /// bus admits anyone (dbus-daemon refuses `EXTERNAL` for a uid with no passwd entry, as
    /// the test's users have).
    static func busReacher(_ socketPath: String, anonymous: Bool = false) -> String {
        """
        def attempt():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(5)
                    sock.connect(\(String(reflecting: socketPath)))
                    if \(anonymous ? "True" : "False"):
                        sock.sendall(b"\\0AUTH ANONYMOUS\\r\\n")
                    else:
                        uid = str(os.getuid()).encode().hex()
                        sock.sendall(b"\\0AUTH EXTERNAL " + uid.encode() + b"\\r\\n")
                    answer = sock.recv(256).decode(errors="replace").strip()
                    if not answer.startswith("OK"):
                        return answer or "closed"
                    # Authenticated; the bus decides whether this uid may connect once
                    # the first message, Hello, arrives.
                    sock.sendall(b"BEGIN\\r\\n" + hello())
                    reply = sock.recv(4096)
                    return "accepted" if reply else "closed"
            except OSError as error:
                return "error: " + str(error)
        def hello():
            import struct
            def pad(data, n):
                return data + b"\\0" * ((-len(data)) % n)
            fields = b""
            for code, signature, value in [(1, b"o", b"/org/freedesktop/DBus"),
                                           (2, b"s", b"org.freedesktop.DBus"),
                                           (3, b"s", b"Hello"), (6, b"s", b"org.freedesktop.DBus")]:
                fields = pad(fields, 8)
                fields += bytes([code, 1]) + signature + b"\\0"
                fields += struct.pack("<I", len(value)) + value + b"\\0"
            return pad(b"l\\x01\\x00\\x01" + struct.pack("<III", 0, 1, len(fields)) + fields, 8)
        """
    }

    @Test("a sandboxed app cannot reach the person's session bus to press play, forge a push or post as the daemon")
    func sandboxedAppIsOffTheBus() async throws {
        let directory = try TemporaryDirectory(prefix: "busreach")
        // The bus first, then the directory: dbus-daemon unlinks its socket as it goes.
        atTeardown { directory.remove() }
        let bus = try await SessionBus(directory: directory)
        atTeardown { await bus.stop() }
        // Reachable on the file system: only the bus's own rules keep the app out.
        chmod(directory.path, 0o755)
        chmod(bus.socketPath, 0o777)
        var id = ""
        let running = try await Running(prefix: "busreach-daemon", environment: bus.environment) { bundles in
            id = try PythonAppBundles.make(
                "BusReacher",
                script: """
                    \(PythonAppBundles.checkIn)
                    \(Self.busReacher(bus.socketPath))
                    report("auth", attempt())
                    report("uid", os.getuid())
                    while True:
                        time.sleep(1)
                    """,
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { TrustBoundaryTests.report(running, id).contains("\"uid\"") })
        let reported = NotificationTests.reported(running, id)
        let answer = reported["auth"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? ""
        if reported["uid"] == .number(Double(getuid())) {
            // No uid of its own (an unprivileged test run): the app is the person, as any of the
            // person's programs is; nothing more to check here.
            return
        }
        #expect(answer != "accepted", "the bus let the app in")
        #expect(answer == "closed" || answer.hasPrefix("REJECTED") || answer.hasPrefix("error"), "\(answer)")
    }

    @Test(
        "under a person's daemon, an app cannot reach the session bus, though the bus admits its uid",
        .enabled(if: geteuid() == 0, "runs the daemon under a uid of its own, as a person's daemon"))
    func personsAppIsOffTheBus() async throws {
        let uid: UInt32 = 54_328
        let directory = try TemporaryDirectory(prefix: "busperson")
        atTeardown { directory.remove() }
        // A bus that admits anyone: as a person's bus admits the person's programs, which the
        // app, with the person's uid, would be one of.
        let bus = try await SessionBus(directory: directory, admitsAnyone: true)
        atTeardown { await bus.stop() }
        chmod(directory.path, 0o755)
        chmod(bus.socketPath, 0o777)
        let bundles = directory.appending("bundles")
        let id = try PythonAppBundles.make(
            "BusReacher",
            script: """
                \(PythonAppBundles.checkIn)
                \(Self.busReacher(bus.socketPath, anonymous: true))
                report("auth", attempt())
                while True:
                    time.sleep(3600)
                """,
            into: bundles)
        let daemon = try await PersonsDaemon.start(
            as: uid, directory: directory, bundles: bundles, environment: bus.environment)
        let sandbox = try daemon.status().sandbox ?? ""
        #expect(sandbox.contains("session bus out of reach (\(bus.socketPath)"), "\(sandbox)")
        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        let report = daemon.stateDirectory + "/data/\(id)/report.jsonl"
        func text() -> String { (try? String(contentsOfFile: report, encoding: .utf8)) ?? "" }
        #expect(await waitUntil { text().contains("\"auth\"") }, "\(text())")
        let answer = SessionShedTests.reported(text())["auth"] as? String ?? ""
        #expect(answer.hasPrefix("error"), "the app reached the bus: \(answer)")
    }

    // MARK: No bus

    @Test("without a session or system bus the daemon runs on, and bgctl status says why each is absent")
    func withoutBuses() async throws {
        let running = try await Running(
            prefix: "nobus",
            environment: ["DBUS_SESSION_BUS_ADDRESS": "", "DBUS_SYSTEM_BUS_ADDRESS": ""],
            setUp: Self.testApp("Alone", behavior: "idle", modes: ["fetch"]))
        atTeardown { await running.tearDown() }
        let id = "org.backgrounder.tests.alone"
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(try await waitUntil { try running.app(id).state == .active })
        let desktop = try #require(try running.daemon.status().desktop)
        #expect(desktop.sessionBus.state == .disconnected)
        #expect(desktop.sessionBus.detail?.contains("DBUS_SESSION_BUS_ADDRESS is empty") == true)
        #expect(desktop.systemBus.detail?.contains("DBUS_SYSTEM_BUS_ADDRESS is empty") == true)
        #expect(desktop.screenLock == "not followed: DBUS_SYSTEM_BUS_ADDRESS is empty")
        #expect(desktop.notifications.contains("notifications are logged"))
        #expect(desktop.mediaPlayers == 0)
    }

    @Test("a session bus that appears late, dies and comes back is followed")
    func sessionBusComesAndGoes() async throws {
        let directory = try TemporaryDirectory(prefix: "lateBus")
        let address = "unix:path=\(directory.appending("bus"))"
        let running = try await Running(
            prefix: "latebus-daemon", environment: ["DBUS_SESSION_BUS_ADDRESS": address],
            setUp: Self.testApp("Steady", behavior: "idle", modes: ["fetch"]))
        atTeardown { await running.tearDown() }
        #expect(
            await waitUntil {
                (try? running.daemon.status().desktop?.sessionBus.detail)?.contains("cannot connect") == true
            }, "\(String(describing: try? running.daemon.status().desktop))")

        let bus = try await SessionBus(directory: directory)
        #expect(
            await waitUntil(timeout: .seconds(20)) {
                (try? running.daemon.status().desktop?.sessionBus.state) == .connected
            })
        await bus.stop()
        #expect(
            await waitUntil(timeout: .seconds(20)) {
                (try? running.daemon.status().desktop?.sessionBus.state) == .disconnected
            })
        // The daemon serves on.
        _ = try running.request(.open(OpenApp(bundle: "org.backgrounder.tests.steady")))
        #expect(try await waitUntil { try running.app("org.backgrounder.tests.steady").state == .active })
        let again = try await SessionBus(directory: directory)
        atTeardown {
            await again.stop()
            directory.remove()
        }
        #expect(
            await waitUntil(timeout: .seconds(20)) {
                (try? running.daemon.status().desktop?.sessionBus.state) == .connected
            })
    }
}
