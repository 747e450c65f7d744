import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// The force-quit mark outlives a daemon restart but not a reboot, as on iOS: the daemon
/// compares the kernel's boot id (here a file the test rewrites) with the one it recorded.
/// Judged by what the app saw: the launches its own log records.
@Suite("Force quit across restarts and reboots", .timeLimit(.minutes(5)), .tearsDown)
struct ForceQuitRebootTests {
    @Test("a force quit is remembered across a restart in the same boot and forgotten after a reboot")
    func rebootClearsForceQuit() async throws {
        let directory = try TemporaryDirectory(prefix: "reboot")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        let id = try TestAppBundles.make("Quitted", modes: ["remote-notification"], into: bundles)
        let bootFile = directory.appending("boot_id")
        try "1f0e3b1c-boot-one\n".write(toFile: bootFile, atomically: true, encoding: .utf8)
        let arguments = LifecycleTests.fastPolicy + ["--boot-id-file", bootFile]
        let start = {
            try await DaemonProcess(directory: directory, bundleDirectories: [bundles], extraArguments: arguments)
        }
        func forceQuit(_ daemon: DaemonProcess) throws -> Bool {
            guard case .apps(let list) = try daemon.client().request(.ps).body,
                let app = list.apps.first(where: { $0.id.rawValue == id })
            else { throw HarnessError("no \(id) in ps") }
            return app.forceQuit
        }
        // The app's log is in the state directory all three daemons share.
        let appLog = {
            AppLogFile.text(atPath: directory.appending("state/logs/\(id).log")) ?? ""
        }

        let first = try await start()
        atTeardown { await first.stop() }
        _ = try first.client().request(.open(OpenApp(bundle: BundleID(id))))
        #expect(await waitUntil { appLog().contains("didBecomeActive") }, "\(appLog())")
        _ = try first.client().request(.quit(AppReference(bundle: BundleID(id))))
        #expect(await waitUntil { appLog().contains("willTerminate") }, "\(appLog())")
        #expect(try forceQuit(first))
        #expect(await first.stop())

        // The same boot: still force-quit, and a push does not launch it.
        let second = try await start()
        atTeardown { await second.stop() }
        #expect(try forceQuit(second))
        let push = try second.client().request(.wake(WakeRequest(bundle: BundleID(id), reason: .push))).body
        #expect(push.errorCode == .invalidState, "\(push)")
        #expect(await second.stop())
        #expect(RelaunchTests.launches(appLog()) == ["user"], "launched in the same boot: \(appLog())")

        // A reboot: the mark is gone, and a push relaunches it: the app says it was launched
        // for a push.
        try "7c2d9a4e-boot-two\n".write(toFile: bootFile, atomically: true, encoding: .utf8)
        let third = try await start()
        atTeardown { await third.stop() }
        #expect(try forceQuit(third) == false)
        #expect(third.log.contains("rebooted"), "\(third.log)")
        let relaunch = try third.client().request(.wake(WakeRequest(bundle: BundleID(id), reason: .push))).body
        guard case .done = relaunch else {
            Issue.record("the push was refused after a reboot: \(relaunch); daemon: \(third.log.suffix(2000))")
            return
        }
        #expect(await waitUntil { RelaunchTests.launches(appLog()).count == 2 }, "\(appLog())")
        #expect(RelaunchTests.launches(appLog()) == ["user", "push"], "\(appLog())")
    }
}
