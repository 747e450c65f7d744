import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Positions without a receiver (`bgctl simulate location --at`, `bgctl simulate route`): a
/// daemon with no gpsd, the real HikeRecorder recording what the simulation gives, judged by
/// the fixes in its track and what RegionAlerts hears.
@Suite("Simulated locations, without a receiver", .timeLimit(.minutes(5)), .tearsDown)
struct SimulatedLocationTests {
    static let recorder = "org.backgrounder.samples.hikerecorder"

    @Test(
        "a position and a replayed walk reach the recorder as gpsd's fixes would, in order, with their altitudes; bad positions and files are refused"
    )
    func recorderHearsTheSimulation() async throws {
        let running = try await LifecycleTests.Running(prefix: "simloc") { bundles in
            try SampleBundles.assemble("HikeRecorder", into: bundles)
        }
        atTeardown { await running.tearDown() }
        let socket = running.daemon.socketPath
        let bgctl = Locations.product("bgctl")
        func run(_ arguments: String...) async throws -> CLIRun {
            try await CLIRun.run(bgctl, arguments + ["--socket", socket])
        }
        // Opened, the recorder asks for location always: the person answers its prompt.
        _ = try running.request(.open(OpenApp(bundle: BundleID(Self.recorder))))
        struct Waiting: Decodable { let prompts: [ConsentPrompt] }
        var prompt: ConsentPrompt?
        #expect(
            await waitUntil {
                let listed = try? await run("prompts", "--json")
                prompt = (try? JSONDecoder().decode(Waiting.self, from: Data((listed?.standardOutput ?? "").utf8)))?
                    .prompts.first { $0.bundle.rawValue == Self.recorder }
                return prompt != nil
            }, "\(running.appLog(Self.recorder))")
        let asked = try #require(prompt)
        #expect(asked.service == .location && asked.asks == "always" && asked.usage?.isEmpty == false, "\(asked)")
        #expect(asked.choices == ["while-using", "always", "deny"])
        // The app's line reaches its log when the daemon next copies its output.
        #expect(
            await waitUntil { running.appLog(Self.recorder).contains("location authorized: notDetermined") },
            "\(running.appLog(Self.recorder))")
        let wrong = try await run("answer", String(asked.id), "allow")
        #expect(wrong.status != 0 && wrong.standardError.contains("not one of prompt"), "\(wrong)")
        let answered = try await run("answer", String(asked.id), "always")
        #expect(answered.status == 0, "\(answered)")
        #expect(await waitUntil { running.appLog(Self.recorder).contains("location authorized: always") })
        let after = try await run("prompts", "--json")
        #expect(try JSONDecoder().decode(Waiting.self, from: Data(after.standardOutput.utf8)).prompts.isEmpty)

        // One position: where the short walk starts.
        let at = try await run("simulate", "location", "--at", "46.051,14.50280,294.5")
        #expect(at.status == 0, "\(at)")
        let files = running.dataDirectory(Self.recorder)
        func recorded() -> [Location] { Self.trackLog(files + "/track.log") }
        #expect(
            await waitUntil { recorded().count == 1 },
            "\(running.appLog(Self.recorder)) \(running.daemon.log.split(separator: "\n").filter { $0.contains("hikerecorder") }.suffix(15).joined(separator: "\n"))"
        )
        let first = try #require(recorded().first)
        #expect(first.coordinate == Coordinate(latitude: 46.051, longitude: 14.5028) && first.altitude == 294.5)

        // The walk, 120 s of fixes replayed at 100 times: every fix, in order, after the one above.
        let walk = try NMEAFixes.fixture("short-walk.nmea")
        let route = try await run("simulate", "route", Locations.gpsFixture("short-walk.nmea"), "--speed", "100")
        #expect(route.status == 0, "\(route)")
        #expect(route.standardOutput.hasPrefix("replayed \(walk.count) fixes of short-walk.nmea"), "\(route)")
        #expect(await waitUntil { recorded().count == 1 + walk.count }, "\(recorded().count) of \(1 + walk.count)")
        let track = recorded()
        #expect(zip(track, track.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        #expect(track.dropFirst().map(\.altitude) == walk.map(\.altitude))
        // Sent a hundred times faster, dated as walked: the fixes keep the walk's own spacing.
        let span = try #require(track.last).timestamp - track[1].timestamp
        #expect(abs(span - (walk.last!.timestamp - walk[0].timestamp)) < 0.001, "\(span)")
        let status = try running.daemon.status()
        #expect(status.lastFix?.timestamp == track.last?.timestamp)

        // Mistakes are refused with the reason, and nothing reaches the apps.
        let nowhere = try await run("simulate", "location", "--at", "91,0")
        #expect(nowhere.status == 64 && nowhere.standardError.contains("no place on Earth"), "\(nowhere)")
        let withApp = try await run("simulate", "location", Self.recorder, "--at", "46,14")
        #expect(withApp.status == 64 && withApp.standardError.contains("not one app's"), "\(withApp)")
        let missing = try await run("simulate", "route", "/nonexistent/walk.gpx")
        #expect(missing.status == 65 && missing.standardError.contains("/nonexistent/walk.gpx"), "\(missing)")
        let notRoute = try await run("simulate", "route", running.bundles + "/HikeRecorder.bundle/Info.plist")
        #expect(notRoute.status == 65 && notRoute.standardError.contains("no fixes in it"), "\(notRoute)")
        // A client on the wire: a fix before 1970, and one older than the fix before it.
        let reply = try running.request(
            .simulateLocation(
                SimulatedLocation(fixes: [
                    Location(
                        coordinate: Coordinate(latitude: 46, longitude: 14), timestamp: -1, fixMode: .twoDimensional)
                ])))
        guard case .error(let error) = reply else {
            Issue.record("a time before 1970 was taken: \(reply)")
            return
        }
        #expect(error.message.contains("fixes[0]: timestamp -1.0 is no time"), "\(error)")
        let now = Date().timeIntervalSince1970
        let backwards = try running.request(
            .simulateLocation(
                SimulatedLocation(
                    fixes: [now, now - 10].map {
                        Location(
                            coordinate: Coordinate(latitude: 46, longitude: 14), timestamp: $0, fixMode: .twoDimensional
                        )
                    })))
        guard case .error(let older) = backwards else {
            Issue.record("fixes going back in time were taken: \(backwards)")
            return
        }
        #expect(older.message.contains("fixes[1]: timestamp") && older.message.contains("older"), "\(older)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(recorded().count == 1 + walk.count)
    }

    @Test(
        "a walk replayed without a receiver crosses RegionAlerts' region: its alert is delivered, and bgctl notifications --follow prints it"
    )
    func regionAlertReachesAFollower() async throws {
        let alerts = "org.backgrounder.samples.regionalerts"
        let running = try await LifecycleTests.Running(prefix: "simregion") { bundles in
            try SampleBundles.assemble("RegionAlerts", into: bundles)
        }
        atTeardown { await running.tearDown() }
        let socket = running.daemon.socketPath
        let bgctl = Locations.product("bgctl")
        func run(_ program: String, _ arguments: String...) async throws -> CLIRun {
            try await CLIRun.run(program, arguments, environment: ["BACKGROUNDER_SOCKET": socket])
        }
        #expect(try await run(bgctl, "authorize", alerts, "location", "always").status == 0)
        #expect(try await run(bgctl, "authorize", alerts, "notifications").status == 0)
        // The README's region, on the short walk along Slovenska cesta.
        let add = try await run(Locations.product("RegionAlerts"), "add", "corner", "46.0517", "14.5028", "30")
        #expect(add.status == 0, "\(add)")
        _ = try running.request(.open(OpenApp(bundle: BundleID(alerts))))
        #expect(
            await waitUntil {
                guard case .regions(let list)? = try? running.request(.regions(RegionQuery(bundle: BundleID(alerts))))
                else {
                    return false
                }
                return !list.regions.isEmpty
            }, "\(running.appLog(alerts))")
        _ = try running.request(.home)

        let follower = try ChildProcess(
            bgctl, ["notifications", "--follow", "--json", "--socket", socket],
            logPath: running.directory.appending("follow.log"))
        atTeardown { _ = await follower.stop(grace: .seconds(1)) }
        #expect(
            await waitUntil { follower.output.contains("following every app's notifications") }, "\(follower.output)")
        let route = try await run(bgctl, "simulate", "route", Locations.gpsFixture("short-walk.nmea"), "--speed", "20")
        #expect(route.status == 0, "\(route)")
        #expect(
            await waitUntil { follower.output.contains("Arrived at corner") },
            "\(follower.output) \(running.appLog(alerts))")
        let notices = follower.output.split(separator: "\n").compactMap { line in
            try? CLIJSON.decode(DeliveredNotice.self, "notification", from: String(line))
        }
        #expect(
            notices.contains { $0.bundle.rawValue == alerts && $0.notification.request.identifier == "enter corner" })
    }

    /// The fixes in HikeRecorder's log (`time,latitude,longitude,altitude,...` after a `#`
    /// header), as the recorder wrote them; none while there is no log.
    static func trackLog(_ path: String) -> [Location] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard !line.hasPrefix("#"), fields.count >= 4, let time = Double(fields[0]),
                let latitude = Double(fields[1]), let longitude = Double(fields[2])
            else { return nil }
            return Location(
                coordinate: Coordinate(latitude: latitude, longitude: longitude), altitude: Double(fields[3]),
                timestamp: time, fixMode: .threeDimensional)
        }
    }
}
