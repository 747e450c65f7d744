import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Which Info.plist speaks for an app after its bundle is updated and reloaded: the one it
/// was launched with while it runs, the registry's new one once it is not running (as iOS
/// installs an update over an app that is not running).
@Suite("Bundle updates")
struct BundleUpdateTests {
    @Test("a grant follows the reloaded Info.plist when the app is not running, and the launched one while it runs")
    func manifestAfterReload() async throws {
        var id = ""
        let running = try await LifecycleTests.Running(prefix: "update") { bundles in
            id = try TestAppBundles.make("Updated", microphoneUsage: false, into: bundles)
        }
        defer { Task { await running.tearDown() } }
        let grant = ClientMessage.Body.authorize(Authorize(bundle: id, grant: .microphone(.granted)))

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
        #expect(try running.request(.permissions(PermissionsQuery(bundle: id))).permissionsList?.microphone == .granted)

        // Launched with it, then updated to drop it: while it runs, it is what it was launched as.
        _ = try running.request(.open(AppReference(bundle: id)))
        #expect(await waitUntil { running.appLog(id).contains("didBecomeActive") })
        try TestAppBundles.make("Updated", microphoneUsage: false, into: running.bundles)
        _ = try running.request(.reload)
        guard case .done = try running.request(grant) else {
            Issue.record("the running app's grant used the new Info.plist")
            return
        }
        // Once it has quit, the new one speaks for it.
        _ = try running.request(.quit(AppReference(bundle: id)))
        #expect(try await waitUntil(timeout: .seconds(15)) { try running.app(id).state == .notRunning })
        guard case .error(let after) = try running.request(grant) else {
            Issue.record("granted after the update removed the usage description")
            return
        }
        #expect(after.message.contains("NSMicrophoneUsageDescription"), "\(after)")
    }
}

extension DaemonMessage.Body {
    /// The one app of a `PERMISSIONS` reply.
    fileprivate var permissionsList: PermissionList.Entry? {
        guard case .permissions(let list) = self else { return nil }
        return list.apps.first
    }
}
