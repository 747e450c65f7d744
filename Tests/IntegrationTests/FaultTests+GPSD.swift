import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// gpsd faults a person meets, judged by what the daemon and an app end up with: a server on
/// gpsd's port that accepts and then says nothing (or only its banner), a gpsd frozen
/// mid-walk, and a gpsd killed mid-walk and replaced by another that replays the rest.
@Suite(
    "gpsd faults",
    .serialized,
    .enabled(
        if: Locations.hasProgram("gpsfake") && Locations.hasProgram("gpspipe"), "scripts/setup.sh installs gpsd"),
    .timeLimit(.minutes(5)), .tearsDown)
struct GPSDFaultTests {
    typealias Setup = RealTimeSuites.LocationTests.Setup
    static let tracker = "org.backgrounder.tests.tracker"

    /// A daemon following `port`, with a TestApp printing every fix it hears, opened and
    /// subscribed to standard updates.
    static func trackerSetup(_ prefix: String, port: UInt16) async throws -> Setup {
        let setup = try await Setup(prefix, gpsdPort: port, testApps: [("Tracker", "locate", ["location"])])
        atTeardown { await setup.running.tearDown() }
        try setup.authorize(tracker)
        _ = try setup.running.request(.open(OpenApp(bundle: BundleID(tracker))))
        #expect(
            await waitUntil { setup.daemon.log.contains("location: standard updates") }, "\(setup.daemon.log)")
        return setup
    }

    /// `bgctl status` run as a person would, against the daemon: its exit status and output.
    static func bgctlStatus(_ daemon: DaemonProcess, in directory: TemporaryDirectory, _ name: String) async throws
        -> (status: Int32?, output: String)
    {
        let bgctl = try ChildProcess(
            Locations.product("bgctl"), ["status", "--socket", daemon.socketPath],
            logPath: directory.appending("bgctl-\(name).log"))
        let exited = await bgctl.waitForExit(timeout: .seconds(30))
        return (exited ? bgctl.terminationStatus : nil, bgctl.output)
    }

    // MARK: A server that accepts and says nothing

    /// A TCP listener on gpsd's port that accepts every connection and keeps it open without
    /// answering: `silent` says nothing, `banner` sends gpsd's VERSION line and then nothing
    /// (never the reply to WATCH).
    static let stallingServer = #"""
        import socket, sys
        mode, port = sys.argv[1], int(sys.argv[2])
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
        print("listening", flush=True)
        held = []
        while True:
            connection, _ = listener.accept()
            held.append(connection)
            if mode == "banner":
                connection.sendall(b'{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}\r\n')
            print("accepted", flush=True)
        """#

    @Test(
        "a server on gpsd's port that accepts and stalls: noticed within a bound, the daemon serves, fixes flow once gpsd is back",
        arguments: ["silent", "banner"])
    func stalledServer(mode: String) async throws {
        let scratch = try TemporaryDirectory(prefix: "gstall")
        atTeardown { scratch.remove() }
        let port = try LoopbackPort.free()
        let stall = try ChildProcess(
            "/usr/bin/python3", ["-c", Self.stallingServer, mode, "\(port)"],
            logPath: scratch.appending("stall.log"))
        atTeardown { await stall.stop() }
        #expect(await waitUntil { stall.output.contains("listening") }, "\(stall.output)")

        let setup = try await Self.trackerSetup("gstall", port: port)
        let daemon = setup.daemon
        // It connects, waits for the WATCH reply that never comes, gives up and says why, and
        // keeps saying it while it tries again: "disconnected" lasts only the backoff between
        // attempts (CI's loaded run once missed every such window in a minute of polling).
        let noticed = try await waitUntil(timeout: .seconds(60)) {
            let gpsd = try daemon.status().gpsd
            return gpsd.state != .connected && gpsd.detail?.contains("did not answer WATCH") == true
        }
        #expect(noticed, "status: \(String(describing: try? daemon.status().gpsd))\nlog: \(daemon.log)")
        #expect(stall.output.contains("accepted"))
        #expect(daemon.log.contains("did not answer WATCH"), "\(daemon.log)")
        // Never reported as connected to it.
        #expect(!daemon.log.contains("connected to gpsd"), "\(daemon.log)")

        // Still serving: a person's bgctl status, and the app list.
        let status = try await Self.bgctlStatus(daemon, in: scratch, "stalled")
        #expect(status.status == 0, "\(status.output)")
        let gpsdRow = status.output.split(separator: "\n").first { $0.hasPrefix("gpsd") } ?? ""
        #expect(
            gpsdRow.contains("disconnected") || gpsdRow.contains("connecting  127.0.0.1"), "\(status.output)")
        #expect(try setup.running.app(Self.tracker).pid != nil)
        #expect(setup.fixes(Self.tracker).isEmpty)

        // A real gpsd takes the port back: the daemon reconnects and the app hears fixes.
        await stall.stop()
        let gpsd = try await GPSDFake(
            log: Locations.gpsFixture("short-walk.nmea"), cycle: 0.02, port: port, directory: scratch)
        atTeardown { await gpsd.stop() }
        let flowing = await waitUntil(timeout: .seconds(60)) { setup.fixes(Self.tracker).count >= 3 }
        #expect(flowing, "app: \(setup.running.appLog(Self.tracker))\ndaemon: \(daemon.log)")
        #expect(try daemon.status().gpsd.state == .connected)
        #expect(daemon.isRunning)
    }

    // MARK: A gpsd frozen mid-walk

    @Test(
        "gpsd frozen (SIGSTOP) mid-walk: the daemon notices it stopped answering, the app is told, fixes resume after SIGCONT"
    )
    func frozenGPSD() async throws {
        let scratch = try TemporaryDirectory(prefix: "gfrozen")
        atTeardown { scratch.remove() }
        let port = try LoopbackPort.free()
        let setup = try await Self.trackerSetup("gfrozen", port: port)
        let daemon = setup.daemon
        let gpsd = try await GPSDFake(
            log: Locations.gpsFixture("short-walk.nmea"), cycle: 0.02, port: port, directory: scratch)
        // gpsfake and its gpsd are one process group: both stop and both go on.
        atTeardown {
            kill(-gpsd.pid, SIGCONT)
            await gpsd.stop()
        }
        #expect(await waitUntil(timeout: .seconds(60)) { setup.fixes(Self.tracker).count >= 5 })
        // The app heard that the first connections failed before gpsd was there; count from here.
        let failures = { setup.running.appLog(Self.tracker).components(separatedBy: "location failed").count - 1 }
        let failedBefore = failures()

        kill(-gpsd.pid, SIGSTOP)
        // Reports stop; after one unanswered probe the daemon drops the connection.
        let noticed = try await waitUntil(timeout: .seconds(90)) {
            try daemon.status().gpsd.state != .connected
                && daemon.log.contains("stopped answering")
        }
        #expect(noticed, "status: \(String(describing: try? daemon.status().gpsd))\nlog: \(daemon.log)")
        #expect(await waitUntil { failures() > failedBefore }, "\(setup.running.appLog(Self.tracker))")
        let told = setup.running.appLog(Self.tracker).split(separator: "\n").last { $0.contains("location failed") }
        #expect(
            told?.contains("locationUnknown") == true && told?.contains("stopped answering") == true, "\(told ?? "")")
        let status = try await Self.bgctlStatus(daemon, in: scratch, "frozen")
        #expect(status.status == 0, "\(status.output)")
        let heard = setup.fixes(Self.tracker).count

        kill(-gpsd.pid, SIGCONT)
        let resumed = await waitUntil(timeout: .seconds(90)) { setup.fixes(Self.tracker).count >= heard + 3 }
        #expect(resumed, "app: \(setup.running.appLog(Self.tracker))\ndaemon: \(daemon.log)")
        #expect(try daemon.status().gpsd.state == .connected)
        #expect(daemon.isRunning)
    }

    // MARK: gpsd killed mid-walk, another replays the rest

    @Test("gpsd killed mid-walk and another replays the rest: the app has both parts, each fix once, in order")
    func gpsdRestartedMidWalk() async throws {
        let scratch = try TemporaryDirectory(prefix: "grestart")
        atTeardown { scratch.remove() }
        let secondScratch = try TemporaryDirectory(prefix: "grestart2")
        atTeardown { secondScratch.remove() }
        let port = try LoopbackPort.free()
        let setup = try await Self.trackerSetup("grestart", port: port)
        let daemon = setup.daemon
        let walk = try String(contentsOfFile: Locations.gpsFixture("walk-bled.nmea"), encoding: .utf8)
        let epochs = Self.epochs(walk)
        let lastFix = try #require(try TruthTrack.load("walk-bled").fixes.map(\.timestamp).max())

        // The first gpsd: the whole walk, its feeder held until the daemon and gpspipe watch.
        let first = try await Self.gatedGPSD(
            log: try NMEALog.withColdStart("walk-bled.nmea", cycle: 0.01, in: scratch), port: port,
            directory: scratch, daemon: daemon)
        atTeardown {
            kill(-first.gpsd.pid, SIGCONT)
            await first.pipe.stop()
            await first.gpsd.stop()
        }
        // Mid-walk: the feeder is stopped, and once the daemon and gpspipe have read all gpsd
        // sent, gpsd is killed.
        let middle = lastFix - Double(epochs.count) * 5 / 2
        #expect(
            try await waitUntil(timeout: .seconds(90)) { (try daemon.status().lastFix?.timestamp ?? 0) >= middle },
            "\(daemon.log)")
        kill(first.gpsd.pid, SIGSTOP)
        var killedAt = 0.0
        let settled = try await waitUntil(timeout: .seconds(30)) {
            guard let last = first.pipe.reports.last?.time, last == (try daemon.status().lastFix?.timestamp),
                setup.fixes(Self.tracker).last.map({ abs($0.time - last) < 0.01 }) == true
            else { return false }
            killedAt = last
            return true
        }
        #expect(settled, "gpspipe: \(first.pipe.reports.last.map(\.time) ?? 0)")
        kill(-first.gpsd.pid, SIGKILL)
        await first.gpsd.stop()
        await first.pipe.stop()
        #expect(try await waitUntil { try daemon.status().gpsd.state != .connected })

        // The second gpsd on the same port: a receiver searching, then the epochs after the last
        // fix the first one reported.
        let rest = epochs.filter { $0.secondOfDay > Self.secondOfDay(killedAt) }
        #expect(!rest.isEmpty && rest.count < epochs.count)
        let prelude = Array(repeating: epochs[0].text, count: 300)
        let restLog = secondScratch.appending("rest.nmea")
        try ((prelude + rest.map(\.text)).joined(separator: "\n") + "\n").write(
            toFile: restLog, atomically: true, encoding: .utf8)
        let second = try await Self.gatedGPSD(log: restLog, port: port, directory: secondScratch, daemon: daemon)
        atTeardown {
            kill(-second.gpsd.pid, SIGCONT)
            await second.pipe.stop()
            await second.gpsd.stop()
        }
        let done = await waitUntil(timeout: .seconds(120)) {
            guard second.pipe.reports.last?.time == lastFix else { return false }
            return setup.fixes(Self.tracker).last.map { abs($0.time - lastFix) < 0.01 } == true
        }
        #expect(done, "daemon: \(String(describing: try? daemon.status().lastFix?.timestamp)), walk ends \(lastFix)")

        // What the app heard is what the two gpsds reported, in order, each fix once.
        let reported = (first.pipe.reports + second.pipe.reports).map(\.time)
        let heard = setup.fixes(Self.tracker).map(\.time)
        #expect(heard.count == reported.count, "heard \(heard.count), the gpsds reported \(reported.count)")
        #expect(zip(heard, reported).allSatisfy { abs($0 - $1) < 0.01 }, "heard: \(heard)\nreported: \(reported)")
        #expect(zip(heard, heard.dropFirst()).allSatisfy { $0 < $1 }, "not in order, or a fix twice")
        #expect(heard.contains { $0 < killedAt } && heard.contains { $0 > killedAt }, "both parts")
        #expect(daemon.isRunning)
        let truth = try TruthTrack.load("walk-bled").fixes.count
        print("gpsd restarted mid-walk: the app heard \(heard.count) of the walk's \(truth) fixes")
    }

    /// One NMEA epoch (GGA, GSA, RMC) of a fixture, with its time of day.
    struct Epoch {
        var text: String
        var secondOfDay: Double
    }

    /// The fixture's epochs, each ending at its RMC.
    static func epochs(_ log: String) -> [Epoch] {
        var epochs: [Epoch] = []
        var lines: [Substring] = []
        for line in log.split(whereSeparator: \.isNewline) where line.hasPrefix("$") {
            lines.append(line)
            guard line.hasPrefix("$GPRMC") else { continue }
            let time = line.split(separator: ",", omittingEmptySubsequences: false)[1]
            let hours = Double(time.prefix(2)) ?? 0
            let minutes = Double(time.dropFirst(2).prefix(2)) ?? 0
            let seconds = Double(time.dropFirst(4)) ?? 0
            epochs.append(
                Epoch(text: lines.joined(separator: "\n"), secondOfDay: hours * 3600 + minutes * 60 + seconds))
            lines = []
        }
        return epochs
    }

    static func secondOfDay(_ time: Double) -> Double {
        time.truncatingRemainder(dividingBy: 86_400)
    }

    /// gpsd under gpsfake replaying `log` once, its feeder stopped (SIGSTOP) until the daemon
    /// is connected and a gpspipe is watching, so both hear every fix.
    static func gatedGPSD(log: String, port: UInt16, directory: TemporaryDirectory, daemon: DaemonProcess)
        async throws -> (gpsd: GPSDFake, pipe: GPSPipe)
    {
        let gpsd = try await GPSDFake(log: log, cycle: 0.01, singleShot: true, port: port, directory: directory)
        kill(gpsd.pid, SIGSTOP)
        let pipe = try GPSPipe(port: port, directory: directory)
        let pipeLog = directory.appending("gpspipe-\(port).log")
        let watching = try await waitUntil(timeout: .seconds(60)) {
            let text = (try? String(contentsOfFile: pipeLog, encoding: .utf8)) ?? ""
            return try daemon.status().gpsd.state == .connected && text.contains(#""class":"WATCH""#)
        }
        #expect(watching, "daemon: \(String(describing: try? daemon.status().gpsd))")
        kill(gpsd.pid, SIGCONT)
        return (gpsd, pipe)
    }
}
