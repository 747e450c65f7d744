import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Which Info.plist speaks for an app after its bundle is updated and reloaded: the
/// registry's new one, as on iOS; an app running when its bundle is updated or removed is
/// ended, so no process runs that its bundle no longer speaks for.
@Suite("Bundle updates", .timeLimit(.minutes(5)), .tearsDown)
struct BundleUpdateTests {
    @Test("a grant follows the reloaded Info.plist; an app running when its bundle is updated is ended first")
    func manifestAfterReload() async throws {
        var id = ""
        let running = try await LifecycleTests.Running(prefix: "update") { bundles in
            id = try TestAppBundles.make("Updated", microphoneUsage: false, into: bundles)
        }
        atTeardown { await running.tearDown() }
        let grant = ClientMessage.Body.authorize(Authorize(bundle: BundleID(id), grant: .microphone(.granted)))

        // Without NSMicrophoneUsageDescription the grant is refused, and the refusal says why.
        guard case .error(let refused) = try running.request(grant) else {
            Issue.record("granted without a usage description")
            return
        }
        #expect(refused.message.contains("NSMicrophoneUsageDescription"), "\(refused)")

        // The update adds it; once reloaded, the app (not running) is granted at once.
        try TestAppBundles.make("Updated", microphoneUsage: true, into: running.bundles)
        _ = try running.request(.reload)
        guard case .done = try running.request(grant) else {
            Issue.record("the reloaded Info.plist was not used: \(try running.request(grant))")
            return
        }
        #expect(
            try running.request(.permissions(PermissionsQuery(bundle: BundleID(id)))).permissionsList?.microphone
                == .granted)

        // Launched with it, then updated to drop it: the running app is ended (it hears
        // willTerminate, then its process is gone) and the new Info.plist speaks for it.
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        let pid = try #require(try running.app(id).pid)
        try TestAppBundles.make("Updated", microphoneUsage: false, into: running.bundles)
        _ = try running.request(.reload)
        #expect(try await waitUntil(timeout: .seconds(15)) { try running.app(id).state == .notRunning })
        #expect(kill(pid, 0) != 0, "the updated app's process \(pid) still runs")
        let ended = try running.app(id)
        #expect(ended.lastExit?.reason == "bundle replaced", "\(ended)")
        #expect(running.appLog(id).contains("willTerminate"), "\(running.appLog(id))")
        guard case .error(let after) = try running.request(grant) else {
            Issue.record("granted after the update removed the usage description")
            return
        }
        #expect(after.message.contains("NSMicrophoneUsageDescription"), "\(after)")
    }

    @Test("a suspended app whose bundle is deleted is ended, found by the watcher without a reload")
    func removedBundleEndsFrozenApp() async throws {
        var id = ""
        let running = try await LifecycleTests.Running(prefix: "removed") { bundles in
            id = try TestAppBundles.make("Removed", into: bundles)
        }
        atTeardown { await running.tearDown() }
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        _ = try running.request(.home)
        #expect(try await waitUntil { try running.app(id).state == .suspended })
        let pid = try #require(try running.app(id).pid)

        // As `apt remove` or a person deleting it: no `bgctl reload`.
        try FileManager.default.removeItem(atPath: running.bundles + "/Removed.bundle")
        #expect(
            await waitUntil(timeout: .seconds(20)) { kill(pid, 0) != 0 && errno == ESRCH },
            "the removed app's process \(pid) still exists: \(running.daemon.log.suffix(1500))")
        #expect(running.daemon.log.contains("its bundle is gone"), "\(running.daemon.log.suffix(1500))")
        // Suspended, it is ended without notice, as on iOS; its log's last marker says why.
        let raw =
            (try? String(contentsOfFile: running.daemon.stateDirectory + "/logs/\(id).log", encoding: .utf8)) ?? ""
        let lastMarker = raw.split(separator: "\n").last.map { AppLogFormat.parse($0) }
        #expect(lastMarker?.isMarker == true, "\(raw.suffix(300))")
        #expect(lastMarker?.text.hasPrefix("terminated: bundle removed") == true, "\(raw.suffix(300))")
        guard case .apps(let list) = try running.request(.ps) else {
            Issue.record("no PS")
            return
        }
        #expect(!list.apps.contains { $0.id.rawValue == id }, "\(list.apps.map(\.id))")
    }

    @Test(
        "a loaded bundle keeps its identifier: a copy dropped beside it, sorting first, is refused, after a reload and a restart"
    )
    func duplicateCopyDoesNotStealTheIdentifier() async throws {
        let running = try await LifecycleTests.Running(prefix: "dupcopy") { bundles in
            _ = try SampleBundles.assemble("Hello", into: bundles)
        }
        atTeardown { await running.tearDown() }
        let id = "org.backgrounder.samples.hello"
        let original = running.bundles + "/Hello.bundle"
        let copy = running.bundles + "/Dup.bundle"
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        func entries(_ daemon: DaemonProcess) throws -> [BundleEntry] {
            guard case .bundles(let list) = try daemon.client().request(.bundles).body else {
                throw HarnessError("no BUNDLES")
            }
            return list.bundles
        }
        _ = try running.request(.reload)
        var list = try entries(running.daemon)
        #expect(list.first { $0.id?.rawValue == id && $0.status == BundleEntry.Status.loaded }?.path == original)
        #expect(list.first { $0.path == copy }?.status == BundleEntry.Status.refused)
        #expect(list.first { $0.path == copy }?.reason?.contains("already loaded from \(original)") == true)

        // A new daemon on the same state directory remembers which one it loaded.
        #expect(await running.daemon.stop())
        let again = try await DaemonProcess(
            directory: running.directory, bundleDirectories: [running.bundles],
            extraArguments: LifecycleTests.fastPolicy)
        atTeardown { await again.stop() }
        list = try entries(again)
        #expect(list.first { $0.id?.rawValue == id && $0.status == BundleEntry.Status.loaded }?.path == original)
        #expect(list.first { $0.path == copy }?.status == BundleEntry.Status.refused)
    }
}

extension DaemonMessage.Body {
    /// The one app of a `PERMISSIONS` reply.
    fileprivate var permissionsList: PermissionList.Entry? {
        guard case .permissions(let list) = self else { return nil }
        return list.apps.first
    }

}
