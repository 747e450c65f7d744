import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Which Info.plist speaks for an app after its bundle is updated and reloaded: the one it
/// was launched with while it runs, the registry's new one once it is not running (as iOS
/// installs an update over an app that is not running).
@Suite("Bundle updates", .timeLimit(.minutes(5)), .tearsDown)
struct BundleUpdateTests {
    @Test("a grant follows the reloaded Info.plist when the app is not running, and the launched one while it runs")
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

        // Launched with it, then updated to drop it: while it runs, it is what it was launched as.
        _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        try TestAppBundles.make("Updated", microphoneUsage: false, into: running.bundles)
        _ = try running.request(.reload)
        guard case .done = try running.request(grant) else {
            Issue.record("the running app's grant used the new Info.plist")
            return
        }
        // Once it has quit, the new one speaks for it.
        _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
        #expect(try await waitUntil(timeout: .seconds(15)) { try running.app(id).state == .notRunning })
        guard case .error(let after) = try running.request(grant) else {
            Issue.record("granted after the update removed the usage description")
            return
        }
        #expect(after.message.contains("NSMicrophoneUsageDescription"), "\(after)")
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
