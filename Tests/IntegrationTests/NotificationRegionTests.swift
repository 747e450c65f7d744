import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

extension RealTimeSuites {
    /// Location triggers of notifications, through a real gpsd replaying a walk.
    @Suite(
        "notifications on region crossings",
        .enabled(
            if: Locations.hasProgram("gpsfake") && Locations.hasProgram("gpspipe"), "scripts/setup.sh installs gpsd"),
        .timeLimit(.minutes(5)), .tearsDown)
    struct NotificationRegionTests {
        @Test("a location trigger posts on entry while its force-quit app stays not running")
        func entryPostsWithoutLaunching() async throws {
            let scratch = try TemporaryDirectory(prefix: "nrgn")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            // A 150 m circle around a point 40 % into the walk, as RegionAlerts' test uses.
            let track = try LocationTests.truthTrack("walk-bled")
            let center = track[track.count * 2 / 5]
            var id = ""
            let running = try await LifecycleTests.Running(prefix: "nrgn", gpsd: "127.0.0.1:\(port)") { bundles in
                id = try PythonAppBundles.make(
                    "Geofence",
                    script: """
                        \(PythonAppBundles.checkIn)
                        region = {"identifier": "viewpoint", "center": {"latitude": \(center.latitude),
                                  "longitude": \(center.longitude)}, "radius": 150,
                                  "notifyOnEntry": True, "notifyOnExit": False}
                        report("add", request({"class": "NOTIFICATION_ADD", "identifier": "arrive",
                            "content": {"title": "Arrived", "body": "at the viewpoint"},
                            "trigger": {"type": "location", "region": region, "repeats": False}}))
                        report("done", True)
                        while True:
                            time.sleep(1)
                        """,
                    into: bundles)
            }
            atTeardown { await running.tearDown() }
            try NotificationTests.grant(running, id)
            _ = try running.request(.authorize(Authorize(bundle: BundleID(id), grant: .location(.whenInUse))))
            _ = try running.request(.open(OpenApp(bundle: BundleID(id))))
            #expect(await waitUntil { TrustBoundaryTests.report(running, id).contains("\"done\"") })
            #expect(
                NotificationTests.reported(running, id)["add"]?["class"] == .string("OK"),
                "\(TrustBoundaryTests.report(running, id))")
            #expect(try NotificationTests.list(running, id).pending.map(\.request.identifier) == ["arrive"])
            _ = try running.request(.quit(AppReference(bundle: BundleID(id))))
            #expect(try await waitUntil { try running.app(id).state == .notRunning })

            let walk = try NMEALog.withColdStart("walk-bled.nmea", cycle: 0.01, in: scratch)
            let gpsd = try await GPSDFake(log: walk, cycle: 0.01, singleShot: true, port: port, directory: scratch)
            atTeardown { await gpsd.stop() }
            let delivered = try await waitUntil(timeout: .seconds(90)) {
                try NotificationTests.list(running, id).delivered.map(\.request.identifier) == ["arrive"]
            }
            #expect(delivered, "\(running.daemon.log)")
            #expect(try NotificationTests.list(running, id).pending.isEmpty, "not repeating: it fired once")
            #expect(running.appLog(id).contains("notification arrive (log:"), "\(running.appLog(id))")
            #expect(try running.app(id).state == .notRunning, "the crossing launched the app")
            #expect(running.appLog(id).components(separatedBy: "checkin ").count == 2, "launched once, by the person")
        }
    }
}
