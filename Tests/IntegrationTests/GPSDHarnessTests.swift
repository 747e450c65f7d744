import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

/// The harness's gpsd is real: fixes read through libgps match what the fixture says.
@Suite(
    "gpsd under gpsfake",
    .enabled(if: Locations.hasProgram("gpsfake"), "gpsfake is not installed (scripts/setup.sh installs it)"),
    .timeLimit(.minutes(5)), .tearsDown)
struct GPSDHarnessTests {
    /// Reported positions (with the true altitude) from the fixture's truth file, keyed by fix time.
    static func truth(_ name: String) throws -> [Int: (coordinate: Coordinate, altitude: Double)] {
        var rows: [Int: (coordinate: Coordinate, altitude: Double)] = [:]
        for row in try TruthTrack.load(name).rows {
            guard let fix = row.reported else { continue }
            rows[Int(row.time)] = (fix.coordinate, row.altitude)
        }
        return rows
    }

    @Test("a fix read through libgps matches the replayed walk")
    func readFixThroughLibgps() async throws {
        let directory = try TemporaryDirectory(prefix: "gpsd")
        atTeardown { directory.remove() }
        let gpsd = try await GPSDFake(log: Locations.gpsFixture("short-walk.nmea"), directory: directory)
        atTeardown { await gpsd.stop() }
        let truth = try Self.truth("short-walk")
        #expect(truth.count > 100)

        let port = gpsd.port
        // A bound for a hang, not a judgement of speed: under a second full suite, gpsfake's
        // Python loop has been seen to take more than 30 s to reach the device.
        let (fixes, seen, waited) = try await onOwnThread {
            let connection = try GPSDConnection(host: "127.0.0.1", port: "\(port)")
            var fixes: [Location] = []
            var seen: [String: Int] = [:]
            let started = ContinuousClock.now
            while fixes.count < 5 && ContinuousClock.now < started + .seconds(120) {
                let report = try connection.next(timeout: .milliseconds(500))
                if case .fix(let location) = report {
                    fixes.append(location)
                } else {
                    seen[report.map { "\($0)" } ?? "nothing in 500 ms", default: 0] += 1
                }
            }
            return (fixes, seen, ContinuousClock.now - started)
        }
        #expect(fixes.count == 5, "after \(waited): besides fixes \(seen); gpsfake output: \(gpsd.output)")
        for fix in fixes {
            let expected = try #require(truth[Int(fix.timestamp)], "fix time \(fix.timestamp) is not in the walk")
            #expect(abs(fix.coordinate.latitude - expected.coordinate.latitude) < 1e-6)
            #expect(abs(fix.coordinate.longitude - expected.coordinate.longitude) < 1e-6)
            // The fixture's altitude is the true one; the receiver's error stays within metres.
            if let altitude = fix.altitude {
                #expect(abs(altitude - expected.altitude) < 15)
            }
        }
        // gpsd reports some TPVs of an epoch before the GGA's altitude is merged in, as 2D.
        #expect(fixes.contains { $0.altitude != nil && $0.fixMode == .threeDimensional })
    }

    @Test("the daemon follows gpsd for an app, notices it die, and reconnects when it returns")
    func daemonReconnects() async throws {
        let directory = try TemporaryDirectory(prefix: "gpsr")
        atTeardown { directory.remove() }
        var gpsd = try await GPSDFake(log: Locations.gpsFixture("short-walk.nmea"), directory: directory)
        let port = gpsd.port
        // gpsd is watched only while an app needs fixes: a tracker on standard updates.
        let setup = try await RealTimeSuites.LocationTests.Setup(
            "gpsr", gpsdPort: port, testApps: [("Tracker", "locate", ["location"])])
        atTeardown { await setup.running.tearDown() }
        let tracker = "org.backgrounder.tests.tracker"
        try setup.authorize(tracker)
        _ = try setup.running.request(.open(OpenApp(bundle: BundleID(tracker))))
        let daemon = setup.daemon

        #expect(try await waitUntil { try daemon.status().lastFix != nil }, "log: \(daemon.log)")
        #expect(try daemon.status().gpsd.state == .connected)

        await gpsd.stop()
        #expect(try await waitUntil { try daemon.status().gpsd.state != .connected })

        gpsd = try await GPSDFake(log: Locations.gpsFixture("stationary-jitter.nmea"), port: port, directory: directory)
        atTeardown { [gpsd] in await gpsd.stop() }
        // The stationary fixture lies in Ljubljana at 46.0569 N; the walk started further south.
        let reconnected = try await waitUntil(timeout: .seconds(30)) {
            guard let fix = try daemon.status().lastFix else { return false }
            return abs(fix.coordinate.latitude - 46.0569) < 0.001
        }
        #expect(reconnected, "log: \(daemon.log)")
        #expect(daemon.isRunning)
    }
}
