import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension RealTimeSuites {
    /// Location end to end: a real gpsd under gpsfake replaying the project's walks, the real
    /// daemon, and real apps (TestApp, HikeRecorder, RegionAlerts) hearing the fixes.
    @Suite(
        "location through gpsd",
        .enabled(
            if: Locations.hasProgram("gpsfake") && Locations.hasProgram("gpspipe"), "scripts/setup.sh installs gpsd"),
        .timeLimit(.minutes(5)), .tearsDown)
    struct LocationTests {
        static let hike = "org.backgrounder.samples.hikerecorder"
        static let alerts = "org.backgrounder.samples.regionalerts"

        /// The daemon with some apps, following `gpsd`.
        struct Setup {
            let running: LifecycleTests.Running

            init(
                _ prefix: String, gpsdPort: UInt16, samples: [String] = [], testApps: [(String, String, [String])] = []
            )
                async throws
            {
                running = try await LifecycleTests.Running(
                    prefix: prefix, gpsd: "127.0.0.1:\(gpsdPort)"
                ) { bundles in
                    for sample in samples { try SampleBundles.assemble(sample, into: bundles) }
                    for (name, behavior, modes) in testApps {
                        _ = try TestAppBundles.make(name, behavior: behavior, modes: modes, into: bundles)
                    }
                }
            }

            var daemon: DaemonProcess { running.daemon }
            var state: String { running.daemon.stateDirectory }

            func authorize(_ id: String, _ level: LocationAuthorization = .always) throws {
                guard
                    case .done = try running.request(
                        .authorize(Authorize(bundle: BundleID(id), grant: .location(level))))
                else { throw HarnessError("authorize \(id) refused") }
            }

            /// The fixes an app printed (`fix LAT LON t=TIME`).
            func fixes(_ id: String) -> [(latitude: Double, longitude: Double, time: Double)] {
                running.appLog(id).split(separator: "\n").compactMap { line in
                    let fields = line.split(separator: " ")
                    guard fields.count >= 4, fields[0] == "fix", let latitude = Double(fields[1]),
                        let longitude = Double(fields[2]), let time = Double(fields[3].dropFirst(2))
                    else { return nil }
                    return (latitude, longitude, time)
                }
            }
        }

        /// The fixture's fixes (reported positions) in order, from its truth file.
        static func truthTrack(_ name: String) throws -> [Coordinate] {
            try TruthTrack.load(name).fixes.map(\.coordinate)
        }

        /// Waits until the daemon has seen the fixture's last fix (gpsfake `-1` leaves gpsd up).
        static func replayed(_ fixture: String, by daemon: DaemonProcess, timeout: Duration = .seconds(90)) async throws
            -> Bool
        {
            let last = Int(try #require(try TruthTrack.load(fixture).fixes.map(\.timestamp).max()))
            return try await waitUntil(timeout: timeout) {
                guard let fix = try daemon.status().lastFix else { return false }
                return Int(fix.timestamp) >= last
            }
        }

        static func length(_ track: [Coordinate]) -> Double {
            zip(track, track.dropFirst()).reduce(0) { $0 + $1.0.distance(to: $1.1) }
        }

        /// Runs a program to its end, on a thread of its own: the read and the wait block.
        static func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await onOwnThread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: program)
                process.arguments = arguments
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = pipe
                try process.run()
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return (process.terminationStatus, String(decoding: data, as: UTF8.self))
            }
        }

        // MARK: Hike

        /// gpsd replaying `log`, gpspipe beside it, and the daemon with HikeRecorder authorized
        /// "always" and opened; all stopped at teardown.
        static func openHikeRecorder(
            _ prefix: String, replaying log: String, cycle: Double, in scratch: TemporaryDirectory
        ) async throws -> (Setup, GPSPipe) {
            let gpsd = try await GPSDFake(log: log, cycle: cycle, singleShot: true, directory: scratch)
            let pipe = try GPSPipe(port: gpsd.port, directory: scratch)
            let setup = try await Setup(prefix, gpsdPort: gpsd.port, samples: ["HikeRecorder"])
            atTeardown {
                await pipe.stop()
                await gpsd.stop()
                await setup.running.tearDown()
            }
            try setup.authorize(Self.hike)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(Self.hike))))
            return (setup, pipe)
        }

        @Test("a hike recorded while sent home, suspended, SIGKILLed and relaunched holds every fix gpsd reported")
        func hikeEndToEnd() async throws {
            let scratch = try TemporaryDirectory(prefix: "hike")
            atTeardown { scratch.remove() }
            let walk = try NMEALog.withColdStart("walk-bled.nmea", cycle: 0.01, in: scratch)
            let (setup, pipe) = try await Self.openHikeRecorder("hike", replaying: walk, cycle: 0.01, in: scratch)
            let daemon = setup.daemon
            #expect(
                await waitUntil { daemon.log.contains("location: standard updates and significant changes") },
                "daemon log: \(daemon.log)")
            #expect(try setup.running.app(Self.hike).assertions.isEmpty, "deferred updates hold no assertion")
            _ = try setup.running.request(.home)
            #expect(try await waitUntil { try setup.running.app(Self.hike).state == .suspended }, "\(daemon.log)")

            // Fixes queue while it is frozen; after 250 m of them it is woken with the batch.
            #expect(await waitUntil(timeout: .seconds(60)) { daemon.log.contains("woken for location") })
            let total = try Self.truthTrack("walk-bled").count
            #expect(await waitUntil(timeout: .seconds(60)) { pipe.reports.count > total / 2 })
            let victim = try #require(try setup.running.app(Self.hike).pid)
            kill(victim, SIGKILL)
            #expect(try await waitUntil { try setup.running.app(Self.hike).pid != victim })

            // The next significant change relaunches it, and what queued meanwhile arrives.
            let relaunched = try await waitUntil(timeout: .seconds(60)) {
                try setup.running.app(Self.hike).pid.map { $0 != victim } ?? false
            }
            #expect(relaunched, "daemon log: \(daemon.log)")
            // The recorder's own word for it.
            #expect(
                await waitUntil { setup.running.appLog(Self.hike).contains("launched (location)") },
                "\(setup.running.appLog(Self.hike))")

            // The walk ends; opening the app takes the last batch.
            #expect(try await Self.replayed("walk-bled", by: daemon), "the replay did not finish")
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(Self.hike))))
            let reported = pipe.reports
            // gpsd reports the walk's first epoch without a time, so one fix fewer than the log has.
            #expect(reported.count >= total - 2, "gpspipe saw \(reported.count) of \(total) fixes")

            let gpx = scratch.appending("hike.gpx")
            let exporter = Locations.product("HikeRecorder")
            var points: [(latitude: Double, longitude: Double)] = []
            _ = try await waitUntil(timeout: .seconds(90)) {
                _ = try await Self.run(exporter, ["export", gpx, "--state-dir", setup.state])
                points = Self.trackPoints(gpx)
                return points.count >= reported.count
            }
            #expect(points.count == reported.count, "app log: \(setup.running.appLog(Self.hike))")
            for (point, report) in zip(points, reported) {
                #expect(abs(point.latitude - report.latitude) < 1e-7 && abs(point.longitude - report.longitude) < 1e-7)
            }
            #expect(daemon.isRunning)

            // Another GPX reader agrees.
            if Locations.hasProgram("gpsbabel") {
                let csv = try await Self.run(
                    "/usr/bin/gpsbabel", ["-t", "-i", "gpx", "-f", gpx, "-o", "unicsv", "-F", "-"])
                #expect(csv.status == 0, "\(csv.output)")
                #expect(csv.output.split(whereSeparator: \.isNewline).count == reported.count + 1)
            }
            if Locations.hasProgram("xmllint") {
                let lint = try await Self.run("/usr/bin/xmllint", ["--noout", gpx])
                #expect(lint.status == 0, "\(lint.output)")
            }
        }

        @Test(
            "the daemon SIGKILLed mid-walk with the recorder suspended: adopted, every fix it queued arrives in order")
        func hikeAcrossADaemonRestart() async throws {
            let scratch = try TemporaryDirectory(prefix: "hike-restart")
            atTeardown { scratch.remove() }
            let walk = try NMEALog.withColdStart("walk-bled.nmea", cycle: 0.01, in: scratch)
            let gpsd = try await GPSDFake(log: walk, cycle: 0.01, singleShot: true, directory: scratch)
            let pipe = try GPSPipe(port: gpsd.port, directory: scratch)
            let setup = try await Setup("hike-restart", gpsdPort: gpsd.port, samples: ["HikeRecorder"])
            let first = setup.daemon
            try setup.authorize(Self.hike)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(Self.hike))))
            #expect(await waitUntil { first.log.contains("location: standard updates and significant changes") })
            _ = try setup.running.request(.home)
            #expect(try await waitUntil { try setup.running.app(Self.hike).state == .suspended }, "\(first.log)")
            let recorder = try #require(try setup.running.app(Self.hike).pid)
            let total = try Self.truthTrack("walk-bled").count
            #expect(await waitUntil(timeout: .seconds(60)) { pipe.reports.count > total / 3 })

            first.signal(SIGKILL)
            #expect(await first.waitForExit(timeout: .seconds(10)))
            let killedAt = pipe.reports.count
            let second = try await DaemonProcess(
                directory: setup.running.directory, bundleDirectories: [setup.running.bundles],
                gpsd: "127.0.0.1:\(gpsd.port)",
                extraArguments: LifecycleTests.fastPolicy + ["--suspension", "auto"])
            atTeardown {
                await second.stop()
                await pipe.stop()
                await gpsd.stop()
                await setup.running.tearDown()
            }
            #expect(await waitUntil { (try? second.status().lastFix) != nil }, "\(second.log)")
            let resumedAt = pipe.reports.count
            #expect(second.log.contains("adopted from an earlier run"), "\(second.log.suffix(3000))")

            // The walk ends; opening the recorder (the same process) takes the last batch.
            #expect(try await Self.replayed("walk-bled", by: second), "the replay did not finish")
            _ = try second.client().request(.open(OpenApp(bundle: BundleID(Self.hike))))
            guard case .apps(let list) = try second.client().request(.ps).body else { throw HarnessError("no ps") }
            #expect(list.apps.first { $0.id.rawValue == Self.hike }?.pid == recorder, "adopted, not relaunched")

            let reported = pipe.reports
            let gpx = scratch.appending("hike.gpx")
            var points: [(latitude: Double, longitude: Double)] = []
            _ = try await waitUntil(timeout: .seconds(90)) {
                _ = try await Self.run(Locations.product("HikeRecorder"), ["export", gpx, "--state-dir", setup.state])
                points = Self.trackPoints(gpx)
                return points.count >= reported.count - (resumedAt - killedAt) - 2
                    && points.last.map { abs($0.latitude - reported.last!.latitude) < 1e-7 } == true
            }
            // Every recorded point is a reported fix, in order; what is missing is one run of
            // fixes around the restart (gpsd has no history for a daemon that was not there).
            var indices: [Int] = []
            var next = 0
            for point in points {
                guard
                    let index = reported[next...].firstIndex(where: {
                        abs($0.latitude - point.latitude) < 1e-7 && abs($0.longitude - point.longitude) < 1e-7
                    })
                else {
                    Issue.record("a recorded point is not among the reported fixes, or out of order")
                    break
                }
                indices.append(index)
                next = index + 1
            }
            let missing = Set(reported.indices).subtracting(indices).sorted()
            let contiguous = missing.isEmpty || missing.last! - missing.first! + 1 == missing.count
            #expect(contiguous, "missing fixes \(missing) are not one run around the restart")
            #expect(missing.allSatisfy { $0 >= killedAt - 200 && $0 <= resumedAt + 200 }, "missing: \(missing)")
            print(
                "daemon restart mid-walk: \(missing.count) of \(reported.count) fixes missed (reported while no daemon was connected: \(resumedAt - killedAt) at 100 fixes/s)"
            )
        }

        static func trackPoints(_ path: String) -> [(latitude: Double, longitude: Double)] {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
            let pattern = try! NSRegularExpression(pattern: #"<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)""#)
            return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
                guard let lat = Range(match.range(at: 1), in: text), let lon = Range(match.range(at: 2), in: text),
                    let latitude = Double(text[lat]), let longitude = Double(text[lon])
                else { return nil }
                return (latitude, longitude)
            }
        }

        @Test(
            "HikeRecorder on a table pauses after five minutes of the stationary log, keeps none of its fixes meanwhile, and resumes with the walk"
        )
        func hikePausesStandingStill() async throws {
            let scratch = try TemporaryDirectory(prefix: "hike-pause")
            atTeardown { scratch.remove() }
            // Ten minutes on a table, then (a month later, a few hundred metres off) a walk.
            let still = try NMEALog.withColdStart("stationary-jitter.nmea", cycle: 0.005, in: scratch)
            let walk = try String(contentsOfFile: Locations.gpsFixture("short-walk.nmea"), encoding: .utf8)
            let log = scratch.appending("still-then-walk.nmea")
            try
                (try String(contentsOfFile: still, encoding: .utf8)
                + walk.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("$") }.joined(separator: "\n") + "\n")
                .write(toFile: log, atomically: true, encoding: .utf8)
            let (setup, pipe) = try await Self.openHikeRecorder("hike-pause", replaying: log, cycle: 0.005, in: scratch)
            let daemon = setup.daemon
            #expect(try await Self.replayed("short-walk", by: daemon), "the replay did not finish")
            #expect(
                await waitUntil { setup.running.appLog(Self.hike).contains("resumed: moving") },
                "\(setup.running.appLog(Self.hike).suffix(2000))")
            let appLog = setup.running.appLog(Self.hike)
            let paused = try #require(appLog.range(of: "paused: standing still"), "\(appLog.suffix(2000))")
            #expect(paused.upperBound < appLog.range(of: "resumed: moving")!.lowerBound)
            #expect(daemon.log.contains("standing still: location updates paused"))

            // What it recorded, in its own words: the table's first five minutes (a fix every 2 s),
            // nothing while paused, then the whole walk (which, a month on, starts a new track).
            let lines = appLog.split(separator: "\n")
            let pausedLine = try #require(lines.firstIndex { $0 == "paused: standing still" })
            let resumedLine = try #require(lines.firstIndex { $0 == "resumed: moving" })
            func recorded(_ part: ArraySlice<Substring>) -> Int {
                part.reduce(0) { count, line in
                    guard line.hasPrefix("recorded "), let number = line.split(separator: " ").dropFirst().first else {
                        return count
                    }
                    return count + (Int(number) ?? 0)
                }
            }
            let beforePause = recorded(lines[..<pausedLine])
            #expect(beforePause >= 145 && beforePause <= 153, "\(beforePause) fixes before the pause")
            #expect(recorded(lines[pausedLine..<resumedLine]) == 0)
            let walkFixes = try TruthTrack.load("short-walk").fixes.count
            #expect(
                await waitUntil {
                    recorded(setup.running.appLog(Self.hike).split(separator: "\n")[resumedLine...]) == walkFixes
                },
                "\(setup.running.appLog(Self.hike).suffix(500))")
            #expect(pipe.reports.count >= beforePause + walkFixes + 100, "the table's last five minutes were reported")
        }

        // MARK: Regions

        @Test("RegionAlerts opened before its location grant hands its regions over when the grant arrives")
        func regionsFollowTheGrant() async throws {
            let setup = try await Setup("rgngrant", gpsdPort: try LoopbackPort.free(), samples: ["RegionAlerts"])
            atTeardown { await setup.running.tearDown() }
            let add = try await Self.run(
                Locations.product("RegionAlerts"),
                ["add", "viewpoint", "46.3654", "14.0899", "150", "--state-dir", setup.state])
            #expect(add.status == 0, "\(add.output)")
            func monitored() throws -> [String] {
                guard
                    case .regions(let list) = try setup.running.request(
                        .regions(RegionQuery(bundle: BundleID(Self.alerts))))
                else { throw HarnessError("no REGIONS") }
                return list.regions.map(\.region.identifier)
            }
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(Self.alerts))))
            // Without a grant the daemon refuses the region.
            #expect(
                await waitUntil { setup.running.appLog(Self.alerts).contains("monitoring region viewpoint failed") },
                "\(setup.running.appLog(Self.alerts))")
            #expect(try monitored().isEmpty)
            // The grant alone, without opening the app again, makes it hand the region over.
            try setup.authorize(Self.alerts)
            #expect(
                try await waitUntil { try monitored() == ["viewpoint"] }, "\(setup.running.appLog(Self.alerts))")
            #expect(setup.running.appLog(Self.alerts).contains("location authorized: always"))
        }

        @Test("RegionAlerts, not running, is relaunched for an entry and an exit within dwell + 2 s")
        func regionEndToEnd() async throws {
            let scratch = try TemporaryDirectory(prefix: "rgn")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            let setup = try await Setup("rgn", gpsdPort: port, samples: ["RegionAlerts"])
            atTeardown { await setup.running.tearDown() }
            let daemon = setup.daemon
            // A 150 m circle around a point 40 % into the walk.
            let track = try Self.truthTrack("walk-bled")
            let center = track[track.count * 2 / 5]
            let radius = 150.0
            let add = try await Self.run(
                Locations.product("RegionAlerts"),
                [
                    "add", "viewpoint", "\(center.latitude)", "\(center.longitude)", "\(radius)", "--state-dir",
                    setup.state,
                ])
            #expect(add.status == 0, "\(add.output)")
            try setup.authorize(Self.alerts)
            try NotificationTests.grant(setup.running, Self.alerts)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(Self.alerts))))
            #expect(await waitUntil { daemon.log.contains("monitoring region 'viewpoint'") }, "\(daemon.log)")
            // Its notifications are location triggers the daemon posts by itself.
            #expect(
                try await waitUntil {
                    try NotificationTests.list(setup.running, Self.alerts).pending.map(\.request.identifier)
                        == ["enter viewpoint", "exit viewpoint"]
                }, "\(setup.running.appLog(Self.alerts))")
            _ = try setup.running.request(.quit(AppReference(bundle: BundleID(Self.alerts))))
            #expect(try await waitUntil { try setup.running.app(Self.alerts).state == .notRunning })

            let walk = try NMEALog.withColdStart("walk-bled.nmea", cycle: 0.01, in: scratch)
            let gpsd = try await GPSDFake(log: walk, cycle: 0.01, singleShot: true, port: port, directory: scratch)
            let pipe = try GPSPipe(port: port, directory: scratch)
            atTeardown {
                await pipe.stop()
                await gpsd.stop()
            }
            let log = setup.state + "/data/\(Self.alerts)/alerts.log"
            func alerts() -> [Substring] {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
            }
            var enteredAt: Double?
            var exitedAt: Double?
            _ = await waitUntil(timeout: .seconds(90), interval: .milliseconds(20)) {
                let lines = alerts()
                if enteredAt == nil, lines.contains(where: { $0.contains("enter") }) {
                    enteredAt = Date().timeIntervalSince1970
                }
                if exitedAt == nil, lines.contains(where: { $0.contains("exit") }) {
                    exitedAt = Date().timeIntervalSince1970
                }
                return exitedAt != nil
            }
            // Force-quit, it was relaunched for location: its own log says so.
            #expect(
                setup.running.appLog(Self.alerts).contains("launched (location)"),
                "\(setup.running.appLog(Self.alerts))")
            let entered = try #require(enteredAt, "no entry; daemon log: \(daemon.log)")
            let exited = try #require(exitedAt, "no exit; alerts: \(alerts())")
            #expect(alerts().count == 2, "exactly one entry and one exit: \(alerts())")
            let posted = try NotificationTests.list(setup.running, Self.alerts).delivered.map(\.request.content.title)
            #expect(Set(posted) == ["Arrived at viewpoint", "Left viewpoint"], "\(posted)")

            // The first fixes that qualified, as gpspipe saw them (margin: 5 m + the fix's accuracy).
            let reports = pipe.reports
            func distance(_ report: GPSPipe.Report) -> Double {
                Coordinate(latitude: report.latitude, longitude: report.longitude).distance(to: center)
            }
            let firstInside = try #require(
                reports.firstIndex { distance($0) <= radius - min(5 + ($0.eph ?? 10), radius / 2) })
            let firstOutside = try #require(
                reports[firstInside...].firstIndex { distance($0) >= radius + 5 + ($0.eph ?? 10) })
            let dwell = 20.0
            #expect(entered - reports[firstInside].receivedAt <= dwell + 2)
            #expect(exited - reports[firstOutside].receivedAt <= dwell + 2)
            #expect(daemon.isRunning)
        }

        @Test(
            "a force-quit app monitoring significant changes is relaunched by gpsd's fixes: it says it launched for location and prints the walk's fixes, heard after that launch"
        )
        func forceQuitRelaunchedForLocation() async throws {
            let scratch = try TemporaryDirectory(prefix: "fqloc")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            let setup = try await Setup(
                "fqloc", gpsdPort: port, testApps: [("Quitter", "significant", ["location"])])
            atTeardown { await setup.running.tearDown() }
            let id = "org.backgrounder.tests.quitter"
            try setup.authorize(id)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(id))))
            #expect(await waitUntil { setup.daemon.log.contains("location: significant changes") })
            _ = try setup.running.request(.quit(AppReference(bundle: BundleID(id))))
            #expect(try await waitUntil { try setup.running.app(id).state == .notRunning })
            #expect(try setup.running.app(id).forceQuit)

            let gpsd = try await GPSDFake(
                log: try NMEALog.withColdStart("walk-bled.nmea", cycle: 0.005, in: scratch), cycle: 0.005,
                singleShot: true, port: port, directory: scratch)
            atTeardown { await gpsd.stop() }
            #expect(try await Self.replayed("walk-bled", by: setup.daemon), "\(setup.daemon.log.suffix(2000))")

            // What the app saw after the person quit it (its log from `willTerminate` on):
            // launched, for location only, and fixes heard after that launch.
            func sinceQuit() -> [Substring] {
                let lines = setup.running.appLog(id).split(separator: "\n")
                return lines.lastIndex { $0 == "willTerminate" }.map { Array(lines[($0 + 1)...]) } ?? []
            }
            #expect(
                await waitUntil(timeout: .seconds(60)) { sinceQuit().contains { $0.hasPrefix("fix ") } },
                "no fix after the quit: \(setup.running.appLog(id))")
            let lines = sinceQuit()
            let launches = RelaunchTests.launches(lines.joined(separator: "\n"))
            #expect(launches.first == "location" && Set(launches) == ["location"], "\(lines)")
            let launchedAt = try #require(
                lines.first { $0.hasPrefix("launched location t=") }.flatMap { Int64($0.dropFirst(20)) }, "\(lines)")
            let truth = try TruthTrack.load("walk-bled").fixes
            let heard = lines.compactMap(Self.heardFix)
            #expect(!heard.isEmpty, "\(lines)")
            for fix in heard {
                #expect(fix.heardAt >= launchedAt, "heard at \(fix.heardAt), before the launch at \(launchedAt)")
                let match = truth.first {
                    abs($0.timestamp - fix.time) < 0.5 && $0.coordinate.distance(to: fix.coordinate) < 2
                }
                #expect(match != nil, "fix \(fix) is none the receiver reported")
            }
            #expect(zip(heard, heard.dropFirst()).allSatisfy { $0.time < $1.time }, "in order: \(heard)")
        }

        /// A `fix LAT LON t=FIXTIME r=HEARD` line: the fix, and when the app heard it
        /// (CLOCK_REALTIME, nanoseconds).
        static func heardFix(_ line: Substring) -> (coordinate: Coordinate, time: Double, heardAt: Int64)? {
            let fields = line.split(separator: " ")
            guard fields.count == 5, fields[0] == "fix", let latitude = Double(fields[1]),
                let longitude = Double(fields[2]), fields[3].hasPrefix("t="), let time = Double(fields[3].dropFirst(2)),
                fields[4].hasPrefix("r="), let heardAt = Int64(fields[4].dropFirst(2))
            else { return nil }
            return (Coordinate(latitude: latitude, longitude: longitude), time, heardAt)
        }

        @Test("a receiver lying a few metres from a region's boundary causes no entry/exit flapping")
        func stationaryJitterDoesNotFlap() async throws {
            let scratch = try TemporaryDirectory(prefix: "jit")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            let setup = try await Setup(
                "jit", gpsdPort: port, samples: ["RegionAlerts"], testApps: [("Still", "significant", ["location"])])
            atTeardown { await setup.running.tearDown() }
            let daemon = setup.daemon
            // The table is at 46.0569 N 14.5058 E; the boundary of a 100 m circle passes 5 m from it,
            // well inside the receiver's error.
            let radius = 100.0
            let north = (radius + 5) / 111_195
            let add = try await Self.run(
                Locations.product("RegionAlerts"),
                ["add", "edge", "\(46.0569 + north)", "14.5058", "\(radius)", "--state-dir", setup.state])
            #expect(add.status == 0, "\(add.output)")
            try setup.authorize(Self.alerts)
            try setup.authorize("org.backgrounder.tests.still")
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(Self.alerts))))
            #expect(await waitUntil { daemon.log.contains("monitoring region 'edge'") }, "\(daemon.log)")
            _ = try setup.running.request(.quit(AppReference(bundle: BundleID(Self.alerts))))
            _ = try setup.running.request(.open(OpenApp(bundle: "org.backgrounder.tests.still")))
            #expect(await waitUntil { daemon.log.contains("location: significant changes") })

            let gpsd = try await GPSDFake(
                log: try NMEALog.withColdStart("stationary-jitter.nmea", cycle: 0.005, in: scratch), cycle: 0.005,
                singleShot: true, port: port, directory: scratch)
            atTeardown { await gpsd.stop() }
            #expect(try await Self.replayed("stationary-jitter", by: daemon), "\(daemon.log)")
            try await Task.sleep(for: .milliseconds(500))
            let alerts =
                (try? String(contentsOfFile: setup.state + "/data/\(Self.alerts)/alerts.log", encoding: .utf8)) ?? ""
            #expect(alerts.isEmpty, "flapping: \(alerts)")
            #expect(try setup.running.app(Self.alerts).state == .notRunning)
            // Ten minutes on a table: the first fix and no significant change after it.
            #expect(
                setup.fixes("org.backgrounder.tests.still").count == 1,
                "\(setup.running.appLog("org.backgrounder.tests.still"))")
        }

        // MARK: Significant change

        @Test("significant changes on a walk: about one per 500 m, never two within 5 minutes")
        func significantChangesOnAWalk() async throws {
            let scratch = try TemporaryDirectory(prefix: "sig")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            let setup = try await Setup("sig", gpsdPort: port, testApps: [("Walker", "significant", ["location"])])
            atTeardown { await setup.running.tearDown() }
            let id = "org.backgrounder.tests.walker"
            try setup.authorize(id)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(id))))
            #expect(await waitUntil { setup.daemon.log.contains("location: significant changes") })
            let gpsd = try await GPSDFake(
                log: try NMEALog.withColdStart("walk-bled.nmea", cycle: 0.005, in: scratch), cycle: 0.005,
                singleShot: true, port: port, directory: scratch)
            atTeardown { await gpsd.stop() }
            #expect(try await Self.replayed("walk-bled", by: setup.daemon))
            try await Task.sleep(for: .milliseconds(500))
            let fixes = setup.fixes(id)
            let expected = Self.length(try Self.truthTrack("walk-bled")) / 500
            // Path length over 500 m overestimates: the detour up to the viewpoint and back, and the
            // loop's curve, move the walker less far from each anchor than the path is long.
            #expect(
                Double(fixes.count) >= expected * 0.6 && Double(fixes.count) <= expected + 2,
                "\(fixes.count) events for \(expected) × 500 m")
            for (a, b) in zip(fixes, fixes.dropFirst()) {
                #expect(b.time - a.time >= 300, "two significant changes \(b.time - a.time) s apart")
            }
        }

        // MARK: Failures

        @Test("gpsd killed and restarted mid-walk: the app hears the failure, updates resume, the daemon never stops")
        func gpsdRestart() async throws {
            let scratch = try TemporaryDirectory(prefix: "gpk")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            let setup = try await Setup("gpk", gpsdPort: port, testApps: [("Tracker", "locate", ["location"])])
            atTeardown { await setup.running.tearDown() }
            let id = "org.backgrounder.tests.tracker"
            try setup.authorize(id)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(id))))
            var gpsd = try await GPSDFake(
                log: Locations.gpsFixture("short-walk.nmea"), cycle: 0.02, port: port, directory: scratch)
            #expect(
                await waitUntil { setup.fixes(id).count >= 5 },
                """
                \(setup.running.appLog(id))
                the daemon on gpsd: \(setup.daemon.log.split(separator: "\n").filter { $0.contains("gpsd") }.suffix(20))
                gpsfake: \(gpsd.output.suffix(1000))
                """)
            await gpsd.stop()
            #expect(await waitUntil { setup.running.appLog(id).contains("location failed: locationUnknown") })
            gpsd = try await GPSDFake(
                log: Locations.gpsFixture("stationary-jitter.nmea"), cycle: 0.02, port: port, directory: scratch)
            atTeardown { [gpsd] in await gpsd.stop() }
            let resumed = await waitUntil(timeout: .seconds(30)) {
                setup.fixes(id).contains { abs($0.latitude - 46.0569) < 0.001 }
            }
            #expect(resumed, "\(setup.running.appLog(id))")
            #expect(setup.daemon.isRunning)
        }

        @Test("garbage and truncated NMEA: no crash, and every fix an app hears is one the receiver made")
        func corruptInput() async throws {
            let scratch = try TemporaryDirectory(prefix: "bad")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            let setup = try await Setup("bad", gpsdPort: port, testApps: [("Reader", "locate", ["location"])])
            atTeardown { await setup.running.tearDown() }
            let id = "org.backgrounder.tests.reader"
            try setup.authorize(id)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(id))))
            #expect(await waitUntil { setup.daemon.log.contains("location: standard updates") })
            let truth = try GPSDHarnessTests.truth("corrupt-lines")
            var logs = [Locations.gpsFixture("corrupt-lines.nmea")]
            // Recorded oddities, when ../shared/data is there: a malformed GGA, crazy times, a
            // bad date, no fix at all.
            logs += ["triton400.log", "ac12.log", "april6_2019.log", "bu303-nofix.log"].compactMap(
                Locations.sharedGPSData)
            func fromFixture() -> Int { setup.fixes(id).count { truth[Int($0.time)] != nil } }
            for log in logs {
                // Looping, gpsfake waits for the daemon before it feeds. The generated fixture
                // plays until its good fixes have arrived (however loaded the machine); a few
                // seconds of each recorded log is plenty to show it does no harm.
                let gpsd = try await GPSDFake(log: log, cycle: 0.005, port: port, directory: scratch)
                #expect(try await waitUntil { try setup.daemon.status().gpsd.state == .connected }, "\(log)")
                if log == logs[0] {
                    #expect(
                        await waitUntil(timeout: .seconds(60)) { fromFixture() > 50 },
                        "the corrupt fixture's good fixes arrive")
                } else {
                    try await Task.sleep(for: .seconds(3))
                }
                await gpsd.stop()
                #expect(setup.daemon.isRunning, "after \(log): \(setup.daemon.log)")
            }
            let fixes = setup.fixes(id)
            #expect(fixes.count > 50)
            for fix in fixes {
                #expect(Coordinate(latitude: fix.latitude, longitude: fix.longitude).isValid)
                if let expected = truth[Int(fix.time)] {
                    #expect(abs(fix.latitude - expected.coordinate.latitude) < 1e-6)
                }
            }
        }

        // MARK: Background rules

        @Test(
            "in the background only the location mode with always keeps standard updates; otherwise the app is suspended",
            arguments: [
                (["location"], LocationAuthorization.always, true), ([], .always, false),
                (["location"], .whenInUse, false),
            ])
        func backgroundRules(modes: [String], grant: LocationAuthorization, keepsRunning: Bool) async throws {
            let scratch = try TemporaryDirectory(prefix: "bgr")
            atTeardown { scratch.remove() }
            let port = try LoopbackPort.free()
            let setup = try await Setup("bgr", gpsdPort: port, testApps: [("Hiker", "locate", modes)])
            atTeardown { await setup.running.tearDown() }
            let id = "org.backgrounder.tests.hiker"
            try setup.authorize(id, grant)
            _ = try setup.running.request(.open(OpenApp(bundle: BundleID(id))))
            let gpsd = try await GPSDFake(
                log: Locations.gpsFixture("walk-bled.nmea"), cycle: 0.02, port: port, directory: scratch)
            atTeardown { await gpsd.stop() }
            #expect(await waitUntil { setup.fixes(id).count >= 3 }, "\(setup.running.appLog(id))")
            _ = try setup.running.request(.home)
            try await Task.sleep(for: .seconds(3))  // the fast policy's grace is 1 s
            let app = try setup.running.app(id)
            let before = setup.fixes(id).count
            try await Task.sleep(for: .seconds(1.5))
            let after = setup.fixes(id).count
            if keepsRunning {
                #expect(app.state == .background && app.assertions.contains("location"), "\(app)")
                #expect(after > before, "fixes keep arriving in the background")
            } else {
                #expect(app.state == .suspended, "\(app)")
                #expect(after == before)
            }
        }
    }
}
