import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

extension RealTimeSuites {
    /// The receiver is watched only while an app needs fixes: a real gpsd (gpsfake, logging
    /// its clients' commands) sees no `WATCH` from an idle daemon, one when an app starts
    /// updates, and the connection goes when the app stops them.
    @Suite(
        "the receiver is watched only on demand",
        .enabled(if: Locations.hasProgram("gpsfake"), "scripts/setup.sh installs gpsd"),
        .timeLimit(.minutes(5)), .tearsDown)
    struct ReceiverDemandTests {
        static let tracker = "org.backgrounder.tests.tracker"

        @Test("no WATCH while nothing subscribes; one for an app's updates; released when it stops them")
        func watchFollowsDemand() async throws {
            let scratch = try TemporaryDirectory(prefix: "rcv")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            let gpsd = try await GPSDFake(
                log: Locations.gpsFixture("short-walk.nmea"), cycle: 0.02, port: port, directory: scratch,
                logClients: true)
            atTeardown { await gpsd.stop() }
            let setup = try await LocationTests.Setup(
                "rcv", gpsdPort: port, testApps: [("Tracker", "locate-briefly", ["location"])])
            atTeardown { await setup.running.tearDown() }
            let daemon = setup.daemon
            func watches() -> Int { gpsd.output.components(separatedBy: #"?WATCH={"enable":true"#).count - 1 }
            func notWatched() throws -> Bool {
                try daemon.status().gpsd.detail == "not watched: no app needs fixes"
            }

            // Idle: the service has settled on not watching, and gpsd never heard from it.
            #expect(try await waitUntil { try notWatched() })
            #expect(LoopbackPort.connections(of: daemon.pid, to: port) == 0)
            #expect(watches() == 0, "\(gpsd.output.suffix(2000))")

            try setup.authorize(Self.tracker)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(Self.tracker))))
            #expect(
                await waitUntil { setup.running.appLog(Self.tracker).contains("stopped updating location") },
                "\(setup.running.appLog(Self.tracker))")
            #expect(setup.fixes(Self.tracker).count >= 3)
            // Stopped: the connection is closed, which ends the WATCH, and nothing reconnects.
            #expect(try await waitUntil { try notWatched() && LoopbackPort.connections(of: daemon.pid, to: port) == 0 })
            #expect(watches() == 1, "\(gpsd.output.suffix(2000))")
            #expect(daemon.log.contains("released gpsd: no app needs fixes"))
            #expect(!setup.running.appLog(Self.tracker).contains("location failed"))
        }
    }
}
