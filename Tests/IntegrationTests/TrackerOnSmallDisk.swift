import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// The disk-full tests' scene: a daemon whose state directory is an 8 MiB tmpfs, a tracking
/// app in front with location always, and gpsd replaying the walk; started once the app has
/// heard its first fixes. App output goes beside, on the big disk, so the app can still say
/// what it heard. Every part is registered with ``atTeardown(_:)``.
struct TrackerOnSmallDisk {
    static let id = "org.backgrounder.tests.tracker"
    /// No reserve and no volumes on this disk: the tests watch the store meet a full disk.
    static let noReserve = ["--state-reserve", "0", "--app-data-quota", "0"]

    let directory: TemporaryDirectory
    let bundles: String
    let disk: SmallTmpfs
    let port: UInt16
    let daemon: DaemonProcess
    let gpsd: GPSDFake
    private let appLogs: String

    /// The state directory's database.
    var database: String { directory.appending("state/backgrounder.sqlite") }

    init(prefix: String) async throws {
        directory = try TemporaryDirectory(prefix: prefix)
        let directory = directory
        atTeardown { directory.remove() }
        bundles = directory.appending("bundles")
        try TestAppBundles.make("Tracker", behavior: "locate", modes: ["location"], into: bundles)
        appLogs = directory.appending("app-logs")
        try FileManager.default.createDirectory(atPath: appLogs, withIntermediateDirectories: true)
        // Room for the database and its write-ahead log before the filler takes the rest: under
        // a loaded parallel run checkpoints come late and the log alone outgrew 2 MiB.
        disk = try SmallTmpfs(at: directory.appending("state"), size: "8m")
        let disk = disk
        try disk.bind(appLogs, at: "logs")
        atTeardown { disk.unmount(binds: ["logs"]) }

        port = try LoopbackPort.free()
        // No reserve: these tests are about what a full disk does once it is used up.
        daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], gpsd: "127.0.0.1:\(port)",
            extraArguments: Self.noReserve)
        let daemon = daemon
        atTeardown { await daemon.stop() }
        guard
            case .done = try daemon.client().request(
                .authorize(Authorize(bundle: BundleID(Self.id), grant: .location(.always)))
            ).body
        else { throw HarnessError("authorize refused") }
        _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(Self.id))))
        // A fix every half second or so: what is written before the disk fills stays well under
        // SQLite's checkpoint threshold however long a loaded machine takes to get there, so the
        // write-ahead log is never rewound into space it already holds, and the first fix after
        // the fill needs a new page. At 50 fixes a second a slow run filled and rewound it first,
        // and the fixes after the fill fit in it.
        gpsd = try await GPSDFake(
            log: Locations.gpsFixture("walk-bled.nmea"), cycle: 0.2, port: port, directory: directory)
        let gpsd = gpsd
        atTeardown { await gpsd.stop() }
        let scene = self
        #expect(await waitUntil(timeout: .seconds(30)) { scene.fixes() >= 3 }, "\(appLog())")
    }

    /// The app's output so far.
    func appLog() -> String {
        AppLogFile.text(atPath: appLogs + "/\(Self.id).log") ?? ""
    }

    /// How many fixes the app has printed.
    func fixes() -> Int {
        appLog().split(separator: "\n").filter { $0.hasPrefix("fix ") }.count
    }
}
