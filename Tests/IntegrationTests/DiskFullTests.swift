import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon with its state directory on a 2 MiB tmpfs that fills up while gpsd feeds fixes
/// to an app: the app hears of the loss, `status` shows it, the daemon keeps serving, and
/// fixes flow again once space is freed.
@Suite(
    "disk full",
    .enabled(if: SmallTmpfs.canMount, "mounting a tmpfs needs root and mount(2)"),
    .enabled(if: Locations.hasProgram("gpsfake"), "gpsfake is not installed (scripts/setup.sh installs it)"),
    .timeLimit(.minutes(5)), .tearsDown)
struct DiskFullTests {
    static let id = TrackerOnSmallDisk.id

    @Test("fixes the store cannot take: the app hears it, status shows it, the daemon serves, then recovers")
    func fixesOnAFullDisk() async throws {
        let scene = try await TrackerOnSmallDisk(prefix: "dfull")
        let (directory, disk, daemon, gpsd) = (scene.directory, scene.disk, scene.daemon, scene.gpsd)
        let appLog = scene.appLog
        #expect(try daemon.status().storage?.state == .ok, "\(Self.usage(of: directory.appending("state")))")

        try disk.fill()
        let heard = await waitUntil(timeout: .seconds(60)) { appLog().contains("location failed: eventsNotStored") }
        #expect(heard, "app: \(appLog())\ndaemon: \(daemon.log)")
        let failing = try #require(try daemon.status().storage)
        #expect(failing.state == .failing, "\(failing)")
        #expect(failing.lastError?.contains("disk full") == true, "\(failing)")
        #expect(failing.unstoredEvents > 0)
        #expect(appLog().contains("could not be stored and are lost"))

        // Still serving: ps, the grant stored before, and bgctl's own view of the failure.
        guard case .apps(let apps) = try daemon.client().request(.ps).body else { throw HarnessError("no APPS") }
        #expect(apps.apps.contains { $0.id.rawValue == Self.id && $0.pid != nil })
        guard case .permissions(let grants) = try daemon.client().request(.permissions(PermissionsQuery())).body
        else { throw HarnessError("no PERMISSIONS") }
        #expect(grants.apps.first { $0.bundle.rawValue == Self.id }?.location == .always)
        let bgctl = try ChildProcess(
            Locations.product("bgctl"), ["status", "--socket", daemon.socketPath],
            logPath: directory.appending("bgctl-status.log"))
        #expect(await bgctl.waitForExit(timeout: .seconds(30)))
        #expect(
            bgctl.output.contains("storage") && bgctl.output.contains("failing: SQLite error 13"), "\(bgctl.output)")

        // Space again: new fixes are stored and delivered, and status says so.
        try disk.free()
        let afterFailure = {
            let parts = appLog().components(separatedBy: "location failed: eventsNotStored")
            return parts.count > 1 ? parts.last! : ""
        }
        let resumed = await waitUntil(timeout: .seconds(60)) {
            afterFailure().split(separator: "\n").filter { $0.hasPrefix("fix ") }.count >= 3
        }
        #expect(resumed, "app: \(appLog())")
        let recovered = try #require(try daemon.status().storage)
        #expect(recovered.state == .ok, "\(recovered)")
        #expect(recovered.lastError?.contains("disk full") == true)
        #expect(daemon.isRunning)
        // Stopped here, so the tmpfs unmounts cleanly (the deferred stops are for early exits).
        await gpsd.stop()
        await daemon.stop()
    }

    @Test(
        "with the daemon's reserve, an app's data filling the disk stops neither grants nor their commit: the reserve is given up, status says so, and a killed daemon's successor has them"
    )
    func reserveKeepsGrants() async throws {
        let directory = try TemporaryDirectory(prefix: "dreserve")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        let id = try TestAppBundles.make("Recorder", microphoneUsage: true, into: bundles)
        let appLogs = directory.appending("app-logs")
        try FileManager.default.createDirectory(atPath: appLogs, withIntermediateDirectories: true)
        let disk = try SmallTmpfs(at: directory.appending("state"), size: "24m")
        try disk.bind(appLogs, at: "logs")
        atTeardown { disk.unmount(binds: ["logs"]) }
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: ["--state-reserve", "4M"])
        atTeardown { await daemon.stop() }
        #expect(try daemon.status().storage?.reserveBytes == 4 << 20)

        // The app's data directory takes what is left, as an app writing there would.
        let data = disk.path + "/data/" + id
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let filler = SmallTmpfs(mounted: data)
        try filler.fill()
        for round in 0..<40 {
            let grant: MicrophoneAuthorization = round % 2 == 0 ? .denied : .granted
            guard
                case .done = try daemon.client().request(
                    .authorize(Authorize(bundle: BundleID(id), grant: .microphone(grant)))
                )
                .body
            else {
                Issue.record(
                    "grant \(round) was not committed on the full disk: \(try daemon.status().storage.map { "\($0)" } ?? "-")"
                )
                return
            }
        }
        let storage = try #require(try daemon.status().storage)
        #expect(storage.reserveReleases == 1 && storage.reserveBytes == 0, "\(storage)")
        #expect(storage.state == .ok && storage.lastError?.contains("disk full") == true, "\(storage)")

        daemon.signal(SIGKILL)
        #expect(await daemon.waitForExit(timeout: .seconds(10)))
        // A daemon starts only with room for its first commit (the run record).
        try filler.free()
        let next = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        atTeardown { await next.stop() }
        guard
            case .permissions(let list) = try next.client().request(
                .permissions(PermissionsQuery(bundle: BundleID(id)))
            ).body
        else { throw HarnessError("no PERMISSIONS") }
        #expect(list.apps.first?.microphone == .granted, "the last grant, committed on the full disk")
        await next.stop()
    }

    /// What takes the space under a directory, for a failure message.
    static func usage(of path: String) -> String {
        let files = FileManager.default.enumerator(atPath: path)?.allObjects.compactMap { $0 as? String } ?? []
        return files.compactMap { name -> String? in
            guard let size = (try? FileManager.default.attributesOfItem(atPath: path + "/" + name))?[.size] as? Int,
                size > 0
            else { return nil }
            return "\(name) \(size)"
        }.joined(separator: ", ")
    }
}
