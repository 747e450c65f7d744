import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What `DiskFullTests` leaves out: the daemon's own log names the database and ENOSPC, and a
/// daemon killed while its disk is full leaves everything it committed to the next one,
/// which records fixes again once there is space. (The store-level proof that every event
/// committed before the failure survives, in order, is `StateStoreDurabilityTests`.)
@Suite(
    "disk full: the daemon's log, and a crash on a full disk",
    .enabled(if: SmallTmpfs.canMount, "mounting a tmpfs needs root and mount(2)"),
    .enabled(if: Locations.hasProgram("gpsfake"), "gpsfake is not installed (scripts/setup.sh installs it)"),
    .timeLimit(.minutes(5)), .tearsDown)
struct DiskFullFaultTests {
    static let id = TrackerOnSmallDisk.id

    @Test(
        "the state disk fills while fixes arrive: the log names the file and ENOSPC; killed while full, the next daemon keeps what was committed and records fixes again"
    )
    func logAndCrashOnAFullDisk() async throws {
        let scene = try await TrackerOnSmallDisk(prefix: "dfault")
        let (directory, bundles, disk, port, first, gpsd) = (
            scene.directory, scene.bundles, scene.disk, scene.port, scene.daemon, scene.gpsd
        )
        let (database, appLog, fixes) = (scene.database, scene.appLog, scene.fixes)

        try disk.fill()
        let logged = await waitUntil(timeout: .seconds(60)) { first.log.contains("cannot queue") }
        #expect(logged, "daemon: \(first.log.suffix(3000))")
        let line = first.log.split(separator: "\n").first { $0.contains("cannot queue") } ?? ""
        #expect(line.contains(database) && line.contains("ENOSPC") && line.contains("disk full"), "\(line)")
        #expect(await waitUntil { appLog().contains("location failed: eventsNotStored") }, "\(appLog())")
        #expect(appLog().contains("ENOSPC"), "the app hears the cause too: \(appLog())")

        // A crash while the disk is full; then space comes back and the daemon with it.
        first.signal(SIGKILL)
        #expect(await first.waitForExit(timeout: .seconds(10)))
        try disk.free()
        let heardBefore = fixes()
        let second = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], gpsd: "127.0.0.1:\(port)",
            extraArguments: TrackerOnSmallDisk.noReserve)
        atTeardown { await second.stop() }
        // What was committed is there: the grant, and the app's subscription (fixes flow to it
        // again without anyone asking).
        guard case .permissions(let grants) = try second.client().request(.permissions(PermissionsQuery())).body
        else { throw HarnessError("no PERMISSIONS") }
        #expect(grants.apps.first { $0.bundle.rawValue == Self.id }?.location == .always)
        let recorded = await waitUntil(timeout: .seconds(60)) { fixes() >= heardBefore + 3 }
        #expect(recorded, "app: \(appLog().suffix(2000))\ndaemon: \(second.log.suffix(3000))")
        #expect(try second.status().storage?.state == .ok)
        #expect(second.isRunning)
        // Stopped here, so the tmpfs unmounts cleanly.
        await gpsd.stop()
        await second.stop()
    }
}
