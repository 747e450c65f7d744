import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Daemon start, stop and state", .timeLimit(.minutes(5)), .tearsDown)
struct DaemonLifecycleTests {
    @Test("SIGTERM stops it gracefully: exit 0, socket removed, run recorded as clean")
    func gracefulStop() async throws {
        let fixture = try await DaemonFixture(prefix: "term")
        atTeardown { fixture.directory.remove() }
        let client = try fixture.daemon.client()  // an idle client must not hold up shutdown
        fixture.daemon.signal(SIGTERM)
        #expect(await fixture.daemon.waitForExit(timeout: .seconds(10)), "log: \(fixture.daemon.log)")
        #expect(fixture.daemon.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.daemon.socketPath))
        withExtendedLifetime(client) {}

        let restarted = try await DaemonProcess(directory: fixture.directory, bundleDirectories: [fixture.bundles])
        atTeardown { await restarted.stop() }
        #expect(!restarted.log.contains("did not stop cleanly"))
    }

    @Test("killed with SIGKILL, it restarts on the stale socket and says the last run was unclean")
    func restartAfterKill() async throws {
        let fixture = try await DaemonFixture(prefix: "kill")
        atTeardown { fixture.directory.remove() }
        fixture.daemon.signal(SIGKILL)
        await fixture.daemon.waitForExit(timeout: .seconds(10))
        #expect(FileManager.default.fileExists(atPath: fixture.daemon.socketPath), "a killed daemon leaves its socket")

        let restarted = try await DaemonProcess(directory: fixture.directory, bundleDirectories: [fixture.bundles])
        atTeardown { await restarted.stop() }
        #expect(try restarted.status().bundles.loaded == 1)
        #expect(restarted.log.contains("did not stop cleanly"))
    }

    @Test("a second daemon on the same socket is refused and the first keeps serving")
    func secondDaemonRefused() async throws {
        let fixture = try await DaemonFixture(prefix: "twice")
        atTeardown { await fixture.tearDown() }
        let second = try ChildProcess(
            Locations.product("backgrounderd"),
            ["--socket", fixture.daemon.socketPath, "--state-dir", fixture.directory.appending("state2")],
            logPath: fixture.directory.appending("second.log")
        )
        #expect(await second.waitForExit(timeout: .seconds(20)))
        #expect(second.terminationStatus != 0)
        #expect(second.output.contains("another backgrounderd is already serving"))
        #expect(try fixture.daemon.status().bundles.loaded == 1)
    }

    @Test(
        "socket is 0600 in a 0700 directory (0711 when apps run under uids of their own); the peer is known by SO_PEERCRED"
    )
    func socketPermissionsAndPeer() async throws {
        let fixture = try await DaemonFixture(prefix: "perm")
        atTeardown { await fixture.tearDown() }
        let socketMode =
            try FileManager.default.attributesOfItem(atPath: fixture.daemon.socketPath)[.posixPermissions] as? Int
        #expect(socketMode == 0o600)
        let directoryMode =
            try FileManager.default.attributesOfItem(
                atPath: (fixture.daemon.socketPath as NSString).deletingLastPathComponent
            )[.posixPermissions] as? Int
        // A root daemon's apps pass through (never list) it to reach the audio socket.
        #expect(directoryMode == (geteuid() == 0 ? 0o711 : 0o700))

        let reply = try fixture.daemon.client().request(.hello(Hello(client: "test")))
        guard case .hello(let hello) = reply.body else {
            Issue.record("expected HELLO, got \(reply.className)")
            return
        }
        #expect(hello.pid == getpid())
        #expect(hello.uid == getuid())
    }

    @Test("the state database is SQLite in WAL mode with the bundles recorded")
    func stateStore() async throws {
        let fixture = try await DaemonFixture(prefix: "store")
        defer { fixture.directory.remove() }
        await fixture.daemon.stop()
        let path = fixture.daemon.stateDirectory + "/backgrounder.sqlite"
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 20) ?? Data()
        #expect(header.starts(with: Data("SQLite format 3\0".utf8)))
        // Bytes 18 and 19 of the header are 2 when the database is in WAL mode.
        #expect(header.count == 20 && header[18] == 2 && header[19] == 2)

        let store = try StateStore(directory: fixture.daemon.stateDirectory)
        #expect(try store.knownBundleIdentifiers() == ["org.backgrounder.samples.hello"])
        #expect(
            try store.appliedMigrations() == [
                "v1: runs and bundles", "v2: location", "v3: app users", "v4: scheduling", "v5: transfers",
                "v6: app processes", "v7: notifications", "v8: retired identities", "v9: shared files",
                "v10: library shares",
            ])
    }

    @Test("reload picks up added, removed and broken bundles; the good ones stay loaded")
    func reload() async throws {
        let fixture = try await DaemonFixture(prefix: "reld")
        atTeardown { await fixture.tearDown() }
        let client = try fixture.daemon.client()

        // A second good bundle under another identifier, and a broken one.
        let second = fixture.directory.appending("second")
        try SampleBundles.assemble("Hello", into: second)
        let plist = second + "/Hello.bundle/Info.plist"
        let text = try String(contentsOfFile: plist, encoding: .utf8)
            .replacingOccurrences(of: "org.backgrounder.samples.hello", with: "org.example.hello2")
        try text.write(toFile: plist, atomically: false, encoding: .utf8)
        try FileManager.default.moveItem(atPath: second + "/Hello.bundle", toPath: fixture.bundles + "/Hello2.bundle")
        let broken = fixture.bundles + "/Broken.bundle"
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: broken)

        guard case .reload(let added) = try client.request(.reload).body else {
            Issue.record("expected RELOAD")
            return
        }
        // The directory watcher may have rescanned first; either way both are loaded now.
        #expect(added.added.isEmpty || added.added == ["org.example.hello2"])
        #expect(added.loaded == 2 && added.refused == 1)

        guard case .bundles(let list) = try client.request(.bundles).body else {
            Issue.record("expected BUNDLES")
            return
        }
        #expect(list.bundles.contains { $0.id == "org.example.hello2" && $0.status == .loaded })
        let refused = try #require(list.bundles.first { $0.status == .refused })
        #expect(refused.path == broken + "/Info.plist")
        #expect(refused.key == "Info.plist")
        #expect(refused.reason == "missing")

        try FileManager.default.removeItem(atPath: fixture.bundles + "/Hello2.bundle")
        guard case .reload(let removed) = try client.request(.reload).body else {
            Issue.record("expected RELOAD")
            return
        }
        #expect(removed.removed.isEmpty || removed.removed == ["org.example.hello2"])
        #expect(removed.loaded == 1)
    }

    @Test("bundles installed, broken or removed while it runs are noticed without a reload")
    func watchesBundleDirectories() async throws {
        let fixture = try await DaemonFixture(prefix: "watch")
        atTeardown { await fixture.tearDown() }

        // Install: assemble elsewhere, then move in, as an installer would.
        let staging = fixture.directory.appending("staging")
        try SampleBundles.assemble("Hello", into: staging)
        let plist = staging + "/Hello.bundle/Info.plist"
        let text = try String(contentsOfFile: plist, encoding: .utf8)
            .replacingOccurrences(of: "org.backgrounder.samples.hello", with: "org.example.watched")
        try text.write(toFile: plist, atomically: false, encoding: .utf8)
        let installed = fixture.bundles + "/Watched.bundle"
        try FileManager.default.moveItem(atPath: staging + "/Hello.bundle", toPath: installed)
        // Three minutes: a daemon that started while its uid had no inotify instance left (the
        // suite's start, on a loaded machine) watches once it gets one, tried up to every 30 s.
        #expect(
            try await waitUntil(timeout: .seconds(180)) { try fixture.daemon.status().bundles.loaded == 2 },
            "log: \(fixture.daemon.log)")

        // Break it in place: the edit is seen inside the bundle directory.
        try Data("<plist>broken".utf8).write(to: URL(fileURLWithPath: installed + "/Info.plist"))
        #expect(try await waitUntil { try fixture.daemon.status().bundles == BundleCounts(loaded: 1, refused: 1) })

        try FileManager.default.removeItem(atPath: installed)
        #expect(try await waitUntil { try fixture.daemon.status().bundles == BundleCounts(loaded: 1, refused: 0) })
    }

    @Test(
        "a daemon whose uid has no inotify instance left says so, tries again, and watches the bundles once one is free",
        .enabled(
            if: geteuid() == 0, "runs the daemon, and a holder of every inotify instance, under a uid of their own")
    )
    func inotifyExhausted() async throws {
        // A uid of the test's own: instances are counted per uid (fs.inotify.max_user_instances),
        // so holding all of this one's leaves every other test's daemon alone.
        let uid: UInt32 = 54_321
        let directory = try TemporaryDirectory(prefix: "inotify")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: false)
        chown(directory.path, uid, uid)
        chown(bundles, uid, uid)
        let setpriv = ["/usr/bin/setpriv", "--reuid", "\(uid)", "--regid", "\(uid)", "--clear-groups"]
        let holder = try ChildProcess(
            setpriv[0],
            Array(setpriv.dropFirst()) + [
                "/usr/bin/python3", "-c",
                """
                import ctypes, time
                libc = ctypes.CDLL(None, use_errno=True)
                held = 0
                while libc.inotify_init1(0) >= 0:
                    held += 1
                print("holding %d instances; then errno %d" % (held, ctypes.get_errno()), flush=True)
                time.sleep(600)
                """,
            ],
            logPath: directory.appending("holder.log"))
        atTeardown { await holder.stop(grace: .seconds(1)) }
        #expect(await waitUntil { holder.output.contains("holding") }, "\(holder.output)")

        let daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles], launcher: setpriv)
        atTeardown { await daemon.stop() }
        #expect(
            await waitUntil { daemon.log.contains("inotify is unavailable (Too many open files); trying again") },
            "\(daemon.log)")
        #expect(try daemon.status().bundles.loaded == 0)

        // Installed while it has no instance; then the holder lets go.
        try SampleBundles.assemble("Hello", into: bundles)
        await holder.stop(grace: .seconds(1))
        #expect(await waitUntil { daemon.log.contains("inotify is available again") }, "\(daemon.log)")
        #expect(try daemon.status().bundles.loaded == 1)

        // Watched from then on: another install is seen without a reload.
        let staging = directory.appending("staging")
        try SampleBundles.assemble("Hello", into: staging)
        let plist = staging + "/Hello.bundle/Info.plist"
        let text = try String(contentsOfFile: plist, encoding: .utf8)
            .replacingOccurrences(of: "org.backgrounder.samples.hello", with: "org.example.watched")
        try text.write(toFile: plist, atomically: false, encoding: .utf8)
        try FileManager.default.moveItem(atPath: staging + "/Hello.bundle", toPath: bundles + "/Watched.bundle")
        #expect(try await waitUntil { try daemon.status().bundles.loaded == 2 }, "\(daemon.log)")
    }

    @Test("the Hello sample, opened as a bundle, checks in on the connection it was handed")
    func helloSample() async throws {
        let fixture = try await DaemonFixture(prefix: "hello")
        atTeardown { await fixture.tearDown() }
        let id = "org.backgrounder.samples.hello"
        let log = fixture.daemon.stateDirectory + "/logs/\(id).log"
        _ = try fixture.daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
        #expect(
            await waitUntil {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("Hello is in the foreground")
            })
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(output.contains("Hello from a bundle: launched (user) as \(id)"))

        // Run by hand, outside the daemon, it says why it cannot run.
        let byHand = try ChildProcess(
            fixture.bundles + "/Hello.bundle/Hello", [], logPath: fixture.directory.appending("hello.log"))
        #expect(await byHand.waitForExit(timeout: .seconds(20)))
        #expect(byHand.terminationStatus == 64)
        #expect(
            byHand.output
                == "Hello is an app that backgrounderd launches, not a program to run by hand: "
                + "bgctl open \(id) (Hello --help says more)\n")
    }
}
