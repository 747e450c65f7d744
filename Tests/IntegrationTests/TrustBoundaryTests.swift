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

/// Hostile apps against the trust boundary: each tries to act as a person or as another app,
/// and each test judges the outcome (states, pids, CPU, grants), not the reply it got.
@Suite("Trust boundary: hostile apps", .serialized, .timeLimit(.minutes(5)), .tearsDown)
struct TrustBoundaryTests {
    typealias Running = LifecycleTests.Running

    /// The hostile app's own view of what it tried, for a failure message.
    static func report(_ running: Running, _ id: String) -> String {
        (try? String(contentsOfFile: running.dataDirectory(id) + "/report.jsonl", encoding: .utf8)) ?? ""
    }

    @Test("an app that opens itself, on its connection and on the public socket, is still suspended and frozen")
    func selfOpen() async throws {
        var id = ""
        let running = try await Running(prefix: "selfopen") { bundles in
            id = try PythonAppBundles.make(
                "SelfOpen",
                script: """
                    \(PythonAppBundles.checkIn)
                    import threading
                    def insist():
                        while True:
                            report("own", request({"class": "OPEN", "bundle": BUNDLE}))
                            report("public", public({"class": "OPEN", "bundle": BUNDLE}))
                            report("unlock", request({"class": "UNLOCK"}))
                            time.sleep(0.1)
                    threading.Thread(target=insist, daemon=True).start()
                    burn()
                    """,
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { Self.report(running, id).contains("\"public\"") })
        _ = try running.request(.home)
        #expect(
            try await waitUntil(timeout: .seconds(20)) { try running.app(id).state == .suspended },
            "\(Self.report(running, id).suffix(600))")
        // It burns CPU whenever it runs: frozen, it gains no tick over 2 s.
        let pid = try #require(try running.app(id).pid)
        #expect(await SuspensionEvidence.becomeFrozen(pid), "cgroup.events does not say frozen 1")
        let moved = await SuspensionEvidence.movement([pid])
        #expect(moved.isEmpty, "a suspended app ran: \(moved)")
        #expect(try running.app(id).state == .suspended)
        #expect(running.daemon.log.contains("refused OPEN from the app \(id)"))
        // On the public socket it is refused as no person, or (apps under uids of their own,
        // a root daemon) cannot connect at all.
        #expect(
            running.daemon.log.contains("refused OPEN from an unverified peer (pid")
                || Self.report(running, id).contains("Permission denied"))
        // The control: a person's open thaws it, and the same process spins again.
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await SuspensionEvidence.advance([pid]), "thawed, it spins again")
    }

    @Test(
        "an app cannot quit, wake or open another app, claim memory pressure, move another app's sound, read others' grants, regions and data directories, import or share files, give the device a position, or follow notifications"
    )
    func actOnOthers() async throws {
        var victim = ""
        var attacker = ""
        let running = try await Running(prefix: "others") { bundles in
            victim = try TestAppBundles.make("Victim", into: bundles)
            attacker = try PythonAppBundles.make(
                "Meddler",
                script: """
                    \(PythonAppBundles.checkIn)
                    victim = "org.backgrounder.tests.victim"
                    with open(os.path.join(DATA, "payload"), "w") as payload:
                        payload.write("planted")
                    # Its own question for the person's music: a prompt, and nothing shared.
                    report("own MEDIA_LIBRARY_AUTHORIZATION", request({"class": "MEDIA_LIBRARY_AUTHORIZATION"}))
                    attempts = [
                        {"class": "QUIT", "bundle": victim},
                        {"class": "OPEN", "bundle": victim},
                        {"class": "WAKE", "bundle": victim, "reason": "push"},
                        {"class": "MEMORY_PRESSURE", "critical": True},
                        {"class": "MEMORY_PRESSURE", "warning": True},
                        # The victim's sound sent elsewhere, as a person's mixer would.
                        {"class": "AUDIO_ROUTE", "bundle": victim, "sink": "nowhere"},
                        # Its own open, waiting on itself.
                        {"class": "OPEN", "bundle": BUNDLE, "wait": True},
                        {"class": "HOME"},
                        {"class": "LOCK"},
                        {"class": "PERMISSIONS"},
                        {"class": "REGIONS", "bundle": victim},
                        {"class": "DATA_DIRECTORY", "bundle": victim},
                        # Root's file into its own directory, its own file into the victim's.
                        {"class": "IMPORT", "bundle": BUNDLE, "sources": ["/etc/shadow"]},
                        {"class": "IMPORT", "bundle": victim, "sources": [os.path.join(DATA, "payload")]},
                        {"class": "ADOPT_BUNDLE", "bundle": victim},
                        # The person's files for itself, the victim's shares, the device's position.
                        {"class": "SHARE", "bundle": BUNDLE, "paths": ["/etc"]},
                        {"class": "SHARES", "bundle": victim},
                        {"class": "UNSHARE", "bundle": victim, "paths": []},
                        {"class": "SIMULATE_LOCATION", "fixes": [{"coordinate": {"latitude": 46.0, "longitude": 14.0},
                            "timestamp": time.time(), "fixMode": "2d"}]},
                        {"class": "NOTIFICATIONS_FOLLOW"},
                        # Its own permission question, answered by itself.
                        {"class": "PROMPTS"},
                        {"class": "ANSWER", "prompt": 1, "choice": "always"},
                        {"class": "ANSWER", "prompt": 1, "choice": "allow"},
                    ]
                    for attempt in attempts:
                        report("own " + attempt["class"], request(attempt))
                        report("public " + attempt["class"], public(attempt))
                    report("done", True)
                    while True:
                        time.sleep(1)
                    """,
                extraPlist: "<key>NSAppleMusicUsageDescription</key><string>Plays your music.</string>",
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(victim))))
        #expect(await waitUntil { running.appLog(victim).contains("didBecomeActive") })
        let victimPID = try #require(try running.app(victim).pid)
        _ = try running.request(.open(OpenApp(bundle: BundleID(attacker))))
        let attackerPID = try #require(try running.app(attacker).pid)
        #expect(await waitUntil { Self.report(running, attacker).contains("\"done\"") })

        let victimNow = try running.app(victim)
        #expect(victimNow.pid == victimPID, "the victim still runs as the same process")
        #expect(!victimNow.forceQuit)
        #expect(victimNow.state != .active, "the attacker did not bring the victim to the front")
        let attackerNow = try running.app(attacker)
        #expect(attackerNow.pid == attackerPID)
        #expect(attackerNow.state == .active, "HOME and LOCK from an app did not move the front app")
        for request in [
            "QUIT", "OPEN", "WAKE", "MEMORY_PRESSURE", "HOME", "LOCK", "PERMISSIONS", "REGIONS", "DATA_DIRECTORY",
            "IMPORT", "ADOPT_BUNDLE", "SHARE", "SHARES", "UNSHARE", "SIMULATE_LOCATION", "NOTIFICATIONS_FOLLOW",
            "PROMPTS", "ANSWER", "AUDIO_ROUTE",
        ] {
            #expect(running.daemon.log.contains("refused \(request) from the app \(attacker)"), "\(request)")
        }
        // Nothing was shared with it, and the device has no position (it gave none).
        guard case .shared(let shared) = try running.request(.shares(AppReference(bundle: BundleID(attacker)))) else {
            Issue.record("no SHARED")
            return
        }
        #expect(shared.files.isEmpty, "\(shared)")
        #expect(try running.daemon.status().lastFix == nil)
        // No answer of its own granted anyone anything.
        guard case .permissions(let permissions) = try running.request(.permissions(PermissionsQuery())) else {
            Issue.record("no PERMISSIONS")
            return
        }
        for entry in permissions.apps where [victim, attacker].contains(entry.bundle.rawValue) {
            #expect(entry.location == .notDetermined && entry.microphone == .notDetermined, "\(entry)")
            #expect(entry.mediaLibrary == .notDetermined, "\(entry)")
        }
        // Its music question waits for the person, and its own request said only that.
        guard case .prompts(let prompts) = try running.request(.prompts) else {
            Issue.record("no PROMPTS")
            return
        }
        #expect(
            prompts.prompts.filter { $0.bundle.rawValue == attacker }.map(\.service) == [.mediaLibrary], "\(prompts)")
        let asked =
            Self.report(running, attacker).split(separator: "\n")
            .first { $0.contains("own MEDIA_LIBRARY_AUTHORIZATION") } ?? ""
        #expect(asked.contains(#""MEDIA_LIBRARY""#) && asked.contains(#""notDetermined""#), "\(asked)")
        #expect(!asked.contains("folder"), "\(asked)")
        // No file was imported: neither root's into the attacker's directory nor the attacker's
        // into the victim's.
        #expect(!FileManager.default.fileExists(atPath: running.dataDirectory(attacker) + "/shadow"))
        #expect(!FileManager.default.fileExists(atPath: running.dataDirectory(victim) + "/payload"))
        // Nothing of anyone's grants, regions or data directory reached the attacker, on either socket.
        let report = Self.report(running, attacker)
        for line in report.split(separator: "\n")
        where line.contains("PERMISSIONS") || line.contains("REGIONS") || line.contains("DATA_DIRECTORY") {
            // Refused by the daemon, or (the public socket) not even reachable from the sandbox.
            #expect(line.contains(#""class": "ERROR""#) || line.contains(#""class": "OSERROR""#), "\(line)")
            #expect(
                !line.contains(#""apps""#) && !line.contains(#""regions""#) && !line.contains(#""path""#), "\(line)")
        }
    }

    @Test("no grant appears through a dead child's socket, the app's own connection, or a sub-cgroup")
    func noSelfGrant() async throws {
        var id = ""
        let running = try await Running(prefix: "grant") { bundles in
            id = try PythonAppBundles.make(
                "Granter",
                script: """
                    \(PythonAppBundles.checkIn)
                    grants = [
                        {"class": "AUTHORIZE", "bundle": BUNDLE, "service": "location", "level": "always"},
                        {"class": "AUTHORIZE", "bundle": BUNDLE, "service": "microphone", "level": "granted"},
                        {"class": "AUTHORIZE", "bundle": BUNDLE, "service": "media-library", "level": "granted"},
                    ]
                    # A child connects and exits; the app speaks on the socket it inherited.
                    # (Under a root daemon the app's own uid cannot even connect.)
                    borrowed = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    child = os.fork()
                    if child == 0:
                        try:
                            borrowed.connect(SOCKET)
                        finally:
                            os._exit(0)
                    os.waitpid(child, 0)
                    reader = borrowed.makefile("rb")
                    for grant in grants:
                        try:
                            report("dead child", exchange(borrowed, reader, grant))
                        except OSError as error:
                            report("dead child", str(error))
                        report("own", request(grant))
                        report("public", public(grant))
                    # A process in a cgroup of its own below the app's.
                    try:
                        line = [l for l in open("/proc/self/cgroup") if l.startswith("0::")][0]
                        mine = "/sys/fs/cgroup" + line[3:].strip()
                        if not os.path.exists(mine + "/cgroup.procs"):
                            mine = "/sys/fs/cgroup/unified" + line[3:].strip()
                        os.mkdir(mine + "/escape")
                        with open(mine + "/escape/cgroup.procs", "w") as f:
                            f.write(str(os.getpid()))
                        for grant in grants:
                            report("sub-cgroup", public(grant))
                    except OSError as error:
                        report("sub-cgroup", str(error))
                    report("done", True)
                    while True:
                        time.sleep(1)
                    """,
                into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { Self.report(running, id).contains("\"done\"") }, "\(Self.report(running, id))")

        let store = try StateStore(directory: running.daemon.stateDirectory)
        #expect(try store.authorizationLevels(service: .location)[BundleID(id)] == nil, "\(Self.report(running, id))")
        #expect(try store.authorizationLevels(service: .microphone)[BundleID(id)] == nil)
        #expect(try store.authorizationLevels(service: .mediaLibrary)[BundleID(id)] == nil)
        #expect(!running.daemon.log.contains("granted"), "no AUTHORIZE went through")
        // A person still can.
        _ = try running.request(
            .authorize(Authorize(bundle: BundleID(id), grant: .microphone(.granted))))
        #expect(try store.authorizationLevels(service: .microphone)[BundleID(id)] == "granted")
    }
}
