import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An app's data and grants belong to the bundle it was loaded from. Once that bundle is
/// gone, another claiming its identifier starts fresh, and the removed app's identity is kept
/// aside until a person adopts the newcomer as that app; judged by the grant in
/// `bgctl permissions`, the files in the app's data directory, and what launches.
@Suite("Bundle identity", .timeLimit(.minutes(5)), .tearsDown)
struct BundleIdentityTests {
    @Test(
        "a bundle claiming a removed app's identifier starts fresh (held while the removed app still runs), stays fresh across a restart, and has the app's grant and data only once a person adopts it; adopting again undoes it"
    )
    func claimantStartsFresh() async throws {
        var id = ""
        let running = try await LifecycleTests.Running(prefix: "claim") { bundles in
            id = try TestAppBundles.make("Claimed", microphoneUsage: true, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let original = running.bundles + "/Claimed.bundle"
        guard
            case .done = try running.request(.authorize(Authorize(bundle: BundleID(id), grant: .microphone(.granted))))
        else {
            Issue.record("the person's grant was refused")
            return
        }
        let data = running.dataDirectory(id)
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try "the app's own\n".write(toFile: data + "/notes.txt", atomically: false, encoding: .utf8)
        let notes = data + "/notes.txt"
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        let removedPid = try #require(try running.app(id).pid)

        // The app is removed while it runs; another bundle, elsewhere, claims its identifier.
        let staging = running.directory.appending("staging")
        _ = try TestAppBundles.make("Claimed", microphoneUsage: true, into: staging)
        try FileManager.default.removeItem(atPath: original)
        let claimant = running.bundles + "/Newcomer.bundle"
        try FileManager.default.moveItem(atPath: staging + "/Claimed.bundle", toPath: claimant)
        _ = try running.request(.reload)

        func entry(_ daemon: DaemonProcess, _ path: String) throws -> BundleEntry? {
            guard case .bundles(let list) = try daemon.client().request(.bundles).body else {
                throw HarnessError("no BUNDLES")
            }
            return list.bundles.first { $0.path == path }
        }
        func microphone(_ daemon: DaemonProcess) throws -> MicrophoneAuthorization? {
            guard
                case .permissions(let list) = try daemon.client().request(
                    .permissions(PermissionsQuery(bundle: BundleID(id)))
                )
                .body
            else { throw HarnessError("no PERMISSIONS") }
            return list.apps.first?.microphone
        }
        // While the removed app runs, the claimant waits: its identity is still in use. The
        // same scan ends the removed app.
        let held = try #require(try entry(running.daemon, claimant))
        #expect(held.status == .refused)
        #expect(held.reason?.contains("was the app at \(original), which is gone") == true, "\(held)")
        #expect(held.reason?.contains("is being ended") == true, "\(held)")
        #expect(try microphone(running.daemon) == .granted)

        func ended(_ daemon: DaemonProcess) throws -> Bool {
            guard case .apps(let list) = try daemon.client().request(.ps).body else { throw HarnessError("no PS") }
            // A removed app that is not running is no longer listed.
            return (list.apps.first { $0.id.rawValue == id }?.state ?? .notRunning) == .notRunning
        }
        #expect(await waitUntil { kill(removedPid, 0) != 0 && errno == ESRCH })
        // Once the daemon has heard of the exit, the next scan keeps the identity aside.
        #expect(
            await waitUntil {
                _ = try? running.request(.reload)
                return (try? entry(running.daemon, claimant))?.status == .loaded
            })
        // Fresh: no grant, none of the removed app's files, and it runs.
        #expect(try microphone(running.daemon) == .notDetermined, "the grant passed to the claimant")
        #expect(!FileManager.default.fileExists(atPath: notes), "the removed app's files passed to the claimant")
        guard case .done = try running.request(.open(OpenApp(bundle: BundleID(id)))) else {
            Issue.record("the fresh claimant did not open")
            return
        }
        #expect(await waitUntil { running.appLog(id).components(separatedBy: "didBecomeActive").count == 3 })
        #expect(!FileManager.default.fileExists(atPath: notes))

        // A new daemon on the same state directory keeps it fresh.
        #expect(await running.daemon.stop())
        let again = try await DaemonProcess(
            directory: running.directory, bundleDirectories: [running.bundles],
            extraArguments: LifecycleTests.fastPolicy)
        atTeardown { await again.stop() }
        #expect(try entry(again, claimant)?.status == .loaded)
        #expect(try microphone(again) == .notDetermined)

        // Adoption is the person's, for an identity kept aside, and of an app not running.
        guard
            case .error(let nothingKept) = try again.client().request(
                .adoptBundle(AppReference(bundle: "org.example.none"))
            ).body
        else {
            Issue.record("adopted a bundle that is not loaded")
            return
        }
        #expect(nothingKept.code == .notFound)
        try "the newcomer's own\n".write(
            toFile: running.dataDirectory(id) + "/mine.txt", atomically: false, encoding: .utf8)
        guard
            case .done(let adopted) = try again.client().request(.adoptBundle(AppReference(bundle: BundleID(id)))).body
        else {
            Issue.record("the adoption failed")
            return
        }
        #expect(adopted.detail.contains(claimant) && adopted.detail.contains(original), "\(adopted)")
        #expect(try microphone(again) == .granted, "the adopted app has the grant")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "the app's own\n")
        #expect(!FileManager.default.fileExists(atPath: running.dataDirectory(id) + "/mine.txt"))
        guard case .done = try again.client().request(.open(OpenApp(bundle: BundleID(id)))).body else {
            Issue.record("the adopted app did not open")
            return
        }
        guard
            case .error(let whileRunning) = try again.client().request(.adoptBundle(AppReference(bundle: BundleID(id))))
                .body
        else {
            Issue.record("adopted under a running app")
            return
        }
        #expect(whileRunning.code == .invalidState, "\(whileRunning)")
        _ = try again.client().request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil { try ended(again) })

        // Adopting again gives the newcomer back its own.
        guard case .done = try again.client().request(.adoptBundle(AppReference(bundle: BundleID(id)))).body else {
            Issue.record("the second adoption failed")
            return
        }
        #expect(try microphone(again) == .notDetermined)
        #expect(
            try String(contentsOfFile: running.dataDirectory(id) + "/mine.txt", encoding: .utf8)
                == "the newcomer's own\n")
        #expect(!FileManager.default.fileExists(atPath: notes))
    }
}
