import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `--live-restore` keeps apps across a restart only: the daemon asks the service manager
/// that runs it (a stand-in for systemd's D-Bus API on a private bus, `MANAGERPID` set as
/// systemd sets it) what its unit's job is as it stops. A `stop` job (`systemctl stop`,
/// `disable --now`, a package's removal) ends the apps; a `restart` job leaves them for the
/// next daemon. Judged by the app's process.
@Suite("Live restore only across a restart", .timeLimit(.minutes(5)), .tearsDown)
struct LiveRestoreStopTests {
    /// A daemon with `--live-restore` under the stand-in manager, with one app running in
    /// front; returns the app's pid.
    private func scene(_ prefix: String, jobType: String) async throws -> (
        daemon: DaemonProcess, manager: DBusPeerProcess, id: String, pid: Int32, cleanUp: @Sendable () async -> Void
    ) {
        let directory = try TemporaryDirectory(prefix: prefix)
        let bundles = directory.appending("bundles")
        let id = try TestAppBundles.make("Kept", into: bundles)
        let bus = try await SessionBus(directory: directory)
        let manager = try await DBusPeerProcess(
            script: "systemd_manager.py", name: "org.freedesktop.systemd1", bus: bus, directory: directory,
            arguments: ["--job-type", jobType])
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles],
            extraArguments: LifecycleTests.fastPolicy + ["--live-restore"],
            environment: bus.environment.merging(["MANAGERPID": "\(getpid())"]) { _, new in new })
        let cleanUp: @Sendable () async -> Void = {
            _ = await daemon.stop()
            _ = await manager.stop()
            await bus.stop()
            directory.remove()
        }
        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id), wait: true)))
        guard case .apps(let list) = try daemon.client().request(.ps).body,
            let pid = list.apps.first(where: { $0.id.rawValue == id })?.pid
        else {
            await cleanUp()
            throw HarnessError("the app did not start")
        }
        return (daemon, manager, id, pid, cleanUp)
    }

    @Test("a stop job (systemctl stop, disable --now, package removal) ends the apps despite --live-restore")
    func stopEndsApps() async throws {
        let scene = try await scene("lr-stop", jobType: "stop")
        atTeardown { await scene.cleanUp() }
        scene.daemon.signal(SIGTERM)
        #expect(await scene.daemon.waitForExit(timeout: .seconds(30)))
        #expect(kill(scene.pid, 0) != 0 && errno == ESRCH, "the app \(scene.pid) outlived a stop")
        #expect(
            scene.daemon.log.contains("systemd is stopping the daemon, not restarting it"),
            "\(scene.daemon.log.suffix(1500))")
        // It asked about itself.
        let record = (try? String(contentsOfFile: scene.manager.recordPath, encoding: .utf8)) ?? ""
        #expect(record.contains("\"pid\": \(scene.daemon.pid)"), "\(record)")
        #expect(record.contains("\"property\": \"JobType\""), "\(record)")
    }

    @Test("a restart job leaves the apps running for the next daemon")
    func restartKeepsApps() async throws {
        let scene = try await scene("lr-restart", jobType: "restart")
        atTeardown { await scene.cleanUp() }
        scene.daemon.signal(SIGTERM)
        #expect(await scene.daemon.waitForExit(timeout: .seconds(30)))
        #expect(kill(scene.pid, 0) == 0, "the app \(scene.pid) was ended by a restart")
        #expect(scene.daemon.log.contains("restarting: leaving 1 app(s) running"), "\(scene.daemon.log.suffix(1500))")
    }
}
