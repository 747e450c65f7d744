import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The D-Bus peers the daemon's tests talk to behave as the real services do, checked with
/// real clients (busctl, gdbus monitor, notify-send, playerctl) on a private dbus-daemon, so
/// a broken peer fails here and not in the daemon's tests.
@Suite(
    "D-Bus test peers",
    .enabled(
        if: SessionBus.isAvailable,
        "needs dbus-daemon, gdbus, busctl and python3-dbus/python3-gi (scripts/setup.sh installs them)"),
    .timeLimit(.minutes(5)), .tearsDown)
struct DBusPeerTests {
    /// Runs a test on a fresh private bus, then stops the bus (its peers leave with it) and
    /// only then removes the directory, so nothing is still writing there.
    static func withBus(
        name: String = "bus",
        _ body: (SessionBus, TemporaryDirectory) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory(prefix: "dbus")
        defer { directory.remove() }
        let bus = try await SessionBus(directory: directory, name: name)
        do {
            try await body(bus, directory)
        } catch {
            await bus.stop()
            throw error
        }
        await bus.stop()
    }

    @Test("a private bus answers, and its peers leave when it stops")
    func busLifecycle() async throws {
        try await Self.withBus { bus, directory in
            #expect(bus.environment == ["DBUS_SESSION_BUS_ADDRESS": bus.address])
            #expect(try await bus.hasOwner("org.freedesktop.Notifications") == false)

            let server = try await NotificationServerPeer(bus: bus, directory: directory)
            #expect(try await bus.hasOwner(NotificationServerPeer.name))
            // Nothing is activated on this bus: a name nobody owns is an error, not a service start.
            await #expect(throws: BusCallError.self) {
                try await bus.call(
                    destination: "org.example.Nobody", path: "/", method: "org.freedesktop.DBus.Peer.Ping")
            }

            await bus.stop()
            #expect(await server.peer.waitForExitAfterBusStopped(), "peer output: \(server.peer.output)")
        }
    }

    @Test("the notification server records Notify, honours replaces_id and emits the user's actions")
    func notificationServer() async throws {
        try await Self.withBus { bus, directory in
            let server = try await NotificationServerPeer(bus: bus, directory: directory)
            let monitor = try await BusMonitor(bus: bus, sender: NotificationServerPeer.name, directory: directory)
            atTeardown { await monitor.stop() }

            func notify(replacing: UInt32, summary: String) async throws -> UInt32 {
                let reply = try await bus.call(
                    destination: NotificationServerPeer.name, path: NotificationServerPeer.path,
                    method: "org.freedesktop.Notifications.Notify", signature: "susssasa{sv}i",
                    "Inbox", "\(replacing)", "", summary, "It's here",
                    "4", "default", "Open", "reply", "Reply",
                    "3", "urgency", "y", "2", "desktop-entry", "s", "org.example.Inbox", "x-backgrounder-id", "s", "42",
                    "-1")
                return try #require(reply.first?.int.map(UInt32.init), "Notify replied \(reply)")
            }

            let first = try await notify(replacing: 0, summary: "New mail")
            #expect(first == 1)
            let record = try #require(await server.waitForNotification { $0.id == first })
            #expect(record.appName == "Inbox")
            #expect(record.summary == "New mail")
            #expect(record.body == "It's here")
            #expect(record.actions == ["default", "Open", "reply", "Reply"])
            #expect(record.actionKeys == ["default", "reply"])
            #expect(record.hints["urgency"] == .number(2))
            #expect(record.hintTypes["urgency"] == "y")
            #expect(record.hints["desktop-entry"] == .string("org.example.Inbox"))
            #expect(record.hints["x-backgrounder-id"] == .string("42"))
            #expect(record.timeout == -1)

            #expect(try await notify(replacing: first, summary: "Two new mails") == first)
            let second = try await notify(replacing: 0, summary: "Other")
            #expect(second == first + 1)
            #expect(server.notifications().map(\.summary) == ["New mail", "Two new mails", "Other"])
            #expect(try await server.showing() == [first, second])

            let capabilities = try await bus.call(
                destination: NotificationServerPeer.name, path: NotificationServerPeer.path,
                method: "org.freedesktop.Notifications.GetCapabilities")
            #expect(capabilities.first?.array?.compactMap(\.string) == NotificationServerPeer.capabilities)
            let information = try await bus.call(
                destination: NotificationServerPeer.name, path: NotificationServerPeer.path,
                method: "org.freedesktop.Notifications.GetServerInformation")
            #expect(information.count == 4)
            #expect(information.last == .string("1.2"))

            // The user clicks "Reply": an activation token, the action, then the notification closes.
            try await server.invokeAction(id: first, key: "reply")
            #expect(await monitor.waitFor("ActionInvoked (uint32 \(first), 'reply')"), "\(monitor.output)")
            #expect(await monitor.waitFor("NotificationClosed (uint32 \(first), uint32 2)"), "\(monitor.output)")
            #expect(monitor.signals.contains { $0.contains("ActivationToken (uint32 \(first), ") })

            // The app closes its own: reason 3.
            try await bus.call(
                destination: NotificationServerPeer.name, path: NotificationServerPeer.path,
                method: "org.freedesktop.Notifications.CloseNotification", signature: "u", "\(second)")
            #expect(await monitor.waitFor("NotificationClosed (uint32 \(second), uint32 3)"), "\(monitor.output)")
            #expect(try await server.showing() == [])
            #expect(server.records().contains { $0.event == "CloseNotification" && $0["existed"] == .bool(true) })

            // A test that names a notification that is gone learns which ones are showing.
            let error = await #expect(throws: BusCallError.self) { try await server.invokeAction(id: first) }
            #expect(
                error?.output.contains("id: notification \(first) is not showing") == true,
                "\(String(describing: error))")
            #expect(await server.peer.stop())
        }
    }

    @Test(
        "notify-send, a real libnotify client, is recorded with the specification's hint types",
        .enabled(
            if: Locations.hasProgram("notify-send"), "libnotify-bin is not installed (scripts/setup.sh installs it)"))
    func notifySend() async throws {
        try await Self.withBus { bus, directory in
            let server = try await NotificationServerPeer(bus: bus, directory: directory)

            let result = try await BusTool.run(
                "/usr/bin/notify-send", ["--app-name=Reminders", "--urgency=critical", "Stand up", "It's time"],
                environment: bus.environment)
            #expect(result.status == 0, "\(result.output)")
            let record = try #require(await server.waitForNotification(), "records: \(server.records())")
            #expect(record.appName == "Reminders")
            #expect(record.summary == "Stand up")
            #expect(record.body == "It's time")
            #expect(record.hints["urgency"] == .number(2))
            #expect(record.hintTypes["urgency"] == "y")
        }
    }

    @Test("the logind stand-in resolves the session, emits Lock and Unlock, and reports LockedHint changes")
    func logind() async throws {
        try await Self.withBus(name: "system") { system, directory in
            let logind = try await LogindPeer(bus: system, directory: directory, uid: 1000, user: "alice")
            #expect(logind.environment == ["DBUS_SYSTEM_BUS_ADDRESS": system.address])

            func manager(_ member: String, _ signature: String = "", _ arguments: String...) async throws
                -> [RecordValue]
            {
                try await busCall(
                    address: system.address, destination: LogindPeer.name, path: LogindPeer.managerPath,
                    method: "org.freedesktop.login1.Manager.\(member)", signature: signature, arguments: arguments)
            }
            #expect(try await manager("GetSession", "s", "auto") == [.string(LogindPeer.sessionPath)])
            #expect(try await manager("GetSession", "s", "1") == [.string(LogindPeer.sessionPath)])
            #expect(try await manager("GetSessionByPID", "u", "\(getpid())") == [.string(LogindPeer.sessionPath)])
            let sessions = try await manager("ListSessions")
            #expect(
                sessions == [
                    .array([
                        .array([
                            .string("1"), .number(1000), .string("alice"), .string("seat0"),
                            .string(LogindPeer.sessionPath),
                        ])
                    ])
                ])
            await #expect(throws: BusCallError.self) { try await manager("GetSession", "s", "7") }

            // Properties read through the auto path, as a client that has not resolved it does.
            let all = try await busCall(
                address: system.address, destination: LogindPeer.name, path: LogindPeer.autoPath,
                method: "org.freedesktop.DBus.Properties.GetAll", signature: "s",
                arguments: ["org.freedesktop.login1.Session"])
            let properties = try #require(all.first?.object)
            #expect(properties["Id"]?.object?["data"] == .string("1"))
            #expect(properties["Name"]?.object?["data"] == .string("alice"))
            #expect(properties["Active"]?.object?["data"] == .bool(true))
            #expect(properties["LockedHint"]?.object?["data"] == .bool(false))
            #expect(try await logind.lockedHint() == false)

            // Signals come from the session's real path only, as in logind.
            let monitor = try await BusMonitor(bus: system, sender: LogindPeer.name, directory: directory)
            atTeardown { await monitor.stop() }
            try await logind.lock()
            #expect(await monitor.waitFor("org.freedesktop.login1.Session.Lock ()"), "\(monitor.output)")
            try await logind.setLockedHint(true)
            #expect(
                await monitor.waitFor("PropertiesChanged ('org.freedesktop.login1.Session', {'LockedHint': <true>}"),
                "\(monitor.output)")
            #expect(try await logind.lockedHint() == true)

            // The screen locker reports the unlock through the auto path, as real ones do.
            try await logind.unlock()
            #expect(await monitor.waitFor("org.freedesktop.login1.Session.Unlock ()"), "\(monitor.output)")
            try await busCall(
                address: system.address, destination: LogindPeer.name, path: LogindPeer.autoPath,
                method: "org.freedesktop.login1.Session.SetLockedHint", signature: "b", arguments: ["false"])
            #expect(
                await monitor.waitFor("PropertiesChanged ('org.freedesktop.login1.Session', {'LockedHint': <false>}"),
                "\(monitor.output)")
            #expect(try await logind.lockedHint() == false)
            #expect(monitor.signals.allSatisfy { $0.hasPrefix(LogindPeer.sessionPath + ":") })

            try await logind.setActive(false)
            #expect(await monitor.waitFor("'Active': <false>, 'State': <'online'>"), "\(monitor.output)")
            #expect(logind.records().contains { $0.event == "GetSessionByPID" && $0["pid"]?.int == Int(getpid()) })
            #expect(await logind.peer.stop())
        }
    }

    @Test("the push distributor registers a connector, hands it an endpoint and pushes its messages")
    func pushDistributor() async throws {
        try await Self.withBus { bus, directory in
            let distributor = try await PushDistributorPeer(bus: bus, directory: directory)
            let app = "org.example.PushApp"
            let connector = try await PushConnectorPeer(
                service: app, register: "token-1", description: "Inbox of alice", bus: bus, directory: directory)

            let registration = try #require(await distributor.waitForRegistration { $0.token == "token-1" })
            #expect(registration.service == app)
            #expect(registration.description == "Inbox of alice")
            #expect(registration.result == "REGISTRATION_SUCCEEDED")
            let endpoint = try #require(registration.endpoint)
            #expect(endpoint.hasPrefix(PushDistributorPeer.endpointPrefix))
            #expect(try await distributor.endpoint(token: "token-1") == endpoint)
            let announced = try #require(
                await connector.peer.waitForRecord("NewEndpoint") { $0["token"] == .string("token-1") })
            #expect(announced["endpoint"] == .string(endpoint))
            #expect(announced["interface"] == .string("org.unifiedpush.Connector1"))
            #expect(registration.version == 1)
            #expect(
                await connector.peer.waitForRecord("Registered")?["result"] == .string("REGISTRATION_SUCCEEDED"))

            // A message reaches the connector byte for byte; send returns once the connector answered.
            let message: [UInt8] = [0, 1, 2, 0x7f, 0x80, 0xff] + Array("hello".utf8)
            try await distributor.send(token: "token-1", message: message, id: "m-1")
            let pushed = try #require(connector.records().first { $0.event == "Message" })
            #expect(pushed["message"]?.bytes == message)
            #expect(pushed["id"] == .string("m-1"))
            #expect(pushed["token"] == .string("token-1"))

            let changed = try await distributor.changeEndpoint(token: "token-1")
            #expect(changed != endpoint && changed.hasPrefix(PushDistributorPeer.endpointPrefix))
            #expect(connector.records().contains { $0.event == "NewEndpoint" && $0["endpoint"] == .string(changed) })

            // Registering again with a known token keeps its endpoint and announces it again.
            let again = try await bus.call(
                destination: PushDistributorPeer.name, path: PushDistributorPeer.path,
                method: "org.unifiedpush.Distributor1.Register", signature: "sss", app, "token-1", "Inbox of alice")
            #expect(again == [.string("REGISTRATION_SUCCEEDED"), .string("")])
            #expect(distributor.registrations().last?.endpoint == changed)

            // The connector unregisters: the distributor confirms with an empty token (spec 0.2).
            try await bus.call(
                destination: PushDistributorPeer.name, path: PushDistributorPeer.path,
                method: "org.unifiedpush.Distributor1.Unregister", signature: "s", "token-1")
            #expect(await connector.peer.waitForRecord("Unregistered") { $0["token"] == .string("") } != nil)
            let unknown = await #expect(throws: BusCallError.self) {
                try await distributor.send(token: "token-1", message: [1])
            }
            #expect(unknown?.output.contains("token: no registration with token 'token-1'") == true)

            // The distributor drops a registration by itself: Unregistered carries the token.
            try await bus.call(
                destination: PushDistributorPeer.name, path: PushDistributorPeer.path,
                method: "org.unifiedpush.Distributor1.Register", signature: "sss", app, "token-2", "")
            try await distributor.unregister(token: "token-2")
            #expect(connector.records().contains { $0.event == "Unregistered" && $0["token"] == .string("token-2") })

            // A registration whose app is gone: the distributor's calls fail, and send says why.
            try await bus.call(
                destination: PushDistributorPeer.name, path: PushDistributorPeer.path,
                method: "org.unifiedpush.Distributor1.Register", signature: "sss", "org.example.Gone", "token-3", "")
            let gone = await #expect(throws: BusCallError.self) {
                try await distributor.send(token: "token-3", message: [1, 2, 3])
            }
            #expect(gone?.output.contains("org.example.Gone") == true, "\(String(describing: gone))")
            #expect(
                distributor.deliveries().contains {
                    $0.event == "DeliveryFailed" && $0["error"] == .string("org.freedesktop.DBus.Error.ServiceUnknown")
                })

            // A distributor that cannot register says why.
            try await distributor.failRegistrations(reason: "NETWORK")
            let failed = try await bus.call(
                destination: PushDistributorPeer.name, path: PushDistributorPeer.path,
                method: "org.unifiedpush.Distributor1.Register", signature: "sss", app, "token-4", "")
            #expect(failed == [.string("REGISTRATION_FAILED"), .string("NETWORK")])
            #expect(await distributor.peer.stop())
            #expect(await connector.peer.stop())
        }
    }

    @Test("the push distributor also speaks spec 0.3 (Distributor2 and Connector2, a{sv} arguments)")
    func pushDistributorVersion2() async throws {
        try await Self.withBus { bus, directory in
            let distributor = try await PushDistributorPeer(bus: bus, directory: directory)
            let app = "org.example.PushApp2"
            let connector = try await PushConnectorPeer(
                service: app, register: "token-v2", description: "Chat", version: 2, bus: bus, directory: directory)

            // A connector that picks the generation by introspection (as KDE's does) sees both.
            let introspection = try await bus.call(
                destination: PushDistributorPeer.name, path: PushDistributorPeer.path,
                method: "org.freedesktop.DBus.Introspectable.Introspect")
            let xml = try #require(introspection.first?.string)
            #expect(xml.contains("org.unifiedpush.Distributor1") && xml.contains("org.unifiedpush.Distributor2"))

            let registration = try #require(await distributor.waitForRegistration { $0.token == "token-v2" })
            #expect(registration.version == 2)
            #expect(registration.service == app)
            #expect(registration.description == "Chat")
            let announced = try #require(
                await connector.peer.waitForRecord("NewEndpoint") { $0["token"] == .string("token-v2") })
            #expect(announced["interface"] == .string("org.unifiedpush.Connector2"))
            #expect(announced["endpoint"] == registration.endpoint.map(RecordValue.string))

            try await distributor.send(token: "token-v2", message: [9, 8, 7], id: "m-2")
            let pushed = try #require(connector.records().first { $0.event == "Message" })
            #expect(pushed["interface"] == .string("org.unifiedpush.Connector2"))
            #expect(pushed["message"]?.bytes == [9, 8, 7])
            // Connector2.Message acknowledges the message by its id.
            let delivered = try #require(distributor.deliveries().last)
            #expect(delivered["reply"] == .array([.object(["id": .string("m-2")])]))

            // Distributor2.Unregister answers an empty dictionary and confirms with the token.
            let unregistered = try await bus.call(
                destination: PushDistributorPeer.name, path: PushDistributorPeer.path,
                method: "org.unifiedpush.Distributor2.Unregister", signature: "a{sv}", "1", "token", "s", "token-v2")
            #expect(unregistered == [.object([:])])
            #expect(await connector.peer.waitForRecord("Unregistered") { $0["token"] == .string("token-v2") } != nil)

            try await distributor.failRegistrations(reason: "VAPID_REQUIRED")
            let failed = try await bus.call(
                destination: PushDistributorPeer.name, path: PushDistributorPeer.path,
                method: "org.unifiedpush.Distributor2.Register", signature: "a{sv}",
                "2", "service", "s", app, "token", "s", "token-v3")
            let answer = try #require(failed.first?.object)
            #expect(answer["success"]?.object?["data"] == .string("REGISTRATION_FAILED"))
            #expect(answer["reason"]?.object?["data"] == .string("VAPID_REQUIRED"))
            #expect(await distributor.peer.stop())
            #expect(await connector.peer.stop())
        }
    }

    @Test(
        "playerctl controls the reference MPRIS player on the test's bus, and only there",
        .enabled(if: Locations.hasProgram("playerctl"), "playerctl is not installed (scripts/setup.sh installs it)"))
    func playerctlOnPrivateBus() async throws {
        try await Self.withBus { bus, directory in
            let none = try await playerctl("status", bus: bus)
            #expect(none.status == 1)
            #expect(none.output.contains("No players found"), "\(none.output)")

            let player = try await MPRISPlayerPeer(bus: bus, directory: directory)
            let list = try await playerctl("-l", bus: bus)
            #expect(list.output.split(separator: "\n") == ["backgroundertest"], "\(list.output)")
            #expect(try await playerctl("status", bus: bus).output == "Stopped\n")
            let play = try await playerctl("-p", "backgroundertest", "play-pause", bus: bus)
            #expect(play.status == 0, "\(play.output)")
            #expect(try await playerctl("status", bus: bus).output == "Playing\n")
            let title = try await playerctl("metadata", "--format", "{{title}}|{{artist}}|{{mpris:length}}", bus: bus)
            #expect(title.output == "Test tone|Backgrounder|180000000\n")
            #expect(try await playerctl("position", "12", bus: bus).status == 0)
            // Paused, so playerctl does not add the time since it read Position (it does while playing).
            #expect(try await playerctl("pause", bus: bus).status == 0)
            #expect(try await playerctl("position", bus: bus).output == "12.000000\n")
            #expect(player.calls() == ["PlayPause", "SetPosition", "Pause"])
            let seek = try #require(player.records().first { $0.event == "SetPosition" })
            #expect(seek["track_id"] == .string(MPRISPlayerPeer.trackID))
            #expect(seek["position"]?.int == 12_000_000)
            await player.stop()
        }
    }
}

extension DBusPeerProcess {
    /// Waits for a peer to leave after its bus stopped.
    fileprivate func waitForExitAfterBusStopped() async -> Bool {
        await waitUntil { !isRunning }
    }
}
