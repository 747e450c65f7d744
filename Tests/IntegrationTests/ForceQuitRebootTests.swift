import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// The force-quit mark outlives a daemon restart but not a reboot, as on iOS: the daemon
/// compares the kernel's boot id (here a file the test rewrites) with the one it recorded.
@Suite("Force quit across restarts and reboots")
struct ForceQuitRebootTests {
    @Test("a force quit is remembered across a restart in the same boot and forgotten after a reboot")
    func rebootClearsForceQuit() async throws {
        let directory = try TemporaryDirectory(prefix: "reboot")
        defer { directory.remove() }
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
                let app = list.apps.first(where: { $0.id == id })
            else { throw HarnessError("no \(id) in ps") }
            return app.forceQuit
        }

        let first = try await start()
        _ = try first.client().request(.open(AppReference(bundle: id)))
        _ = try first.client().request(.quit(AppReference(bundle: id)))
        #expect(try forceQuit(first))
        #expect(await first.stop())

        // The same boot: still force-quit, and a push does not launch it.
        let second = try await start()
        #expect(try forceQuit(second))
        let push = try second.client().request(.wake(WakeRequest(bundle: id, reason: .push))).body
        #expect(push.errorCode == .invalidState, "\(push)")
        #expect(await second.stop())

        // A reboot: the mark is gone, and a push relaunches it.
        try "7c2d9a4e-boot-two\n".write(toFile: bootFile, atomically: true, encoding: .utf8)
        let third = try await start()
        defer { Task { await third.stop() } }
        #expect(try forceQuit(third) == false)
        #expect(third.log.contains("rebooted"), "\(third.log)")
        let relaunch = try third.client().request(.wake(WakeRequest(bundle: id, reason: .push))).body
        guard case .done(let done) = relaunch else {
            Issue.record("the push was refused after a reboot: \(relaunch)")
            return
        }
        #expect(done.detail.contains("relaunched"))
    }
}
