import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A private PulseAudio with a null sink, and a daemon using it with the fast test policy.
struct AudioFixture {
    static let player = "org.backgrounder.samples.backgroundplayer"
    static var available: Bool { Locations.hasProgram("pulseaudio") && Locations.hasProgram("parec") }

    let directory: TemporaryDirectory
    let pulse: PulseAudioServer
    let daemon: DaemonProcess
    let bundles: String

    /// Runs `test` with a fixture and tears it down afterwards, even when the test fails: the
    /// daemon, its apps and PulseAudio must not outlive the test run.
    static func run(
        prefix: String, extraArguments: [String] = [], _ setUp: (String) throws -> Void,
        test: (AudioFixture) async throws -> Void
    ) async throws {
        let fixture = try await AudioFixture(prefix: prefix, extraArguments: extraArguments, setUp: setUp)
        do {
            try await test(fixture)
        } catch {
            await fixture.tearDown()
            throw error
        }
        await fixture.tearDown()
    }

    init(prefix: String, extraArguments: [String] = [], setUp: (String) throws -> Void) async throws {
        directory = try TemporaryDirectory(prefix: prefix)
        pulse = try await PulseAudioServer(directory: directory)
        bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        try setUp(bundles)
        daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], pulseServer: pulse.server,
            extraArguments: LifecycleTests.fastPolicy + extraArguments)
        let daemon = self.daemon
        guard await waitUntil({ (try? daemon.status().pulseAudio.state) == .connected }) else {
            throw HarnessError("the daemon did not reach PulseAudio: \(daemon.log)")
        }
    }

    func request(_ body: ClientMessage.Body) throws -> DaemonMessage.Body {
        try daemon.client().request(body).body
    }

    func app(_ id: String) throws -> AppInfo {
        guard case .apps(let list) = try request(.ps), let app = list.apps.first(where: { $0.id.rawValue == id }) else {
            throw HarnessError("no \(id) in ps")
        }
        return app
    }

    func audio(_ id: String? = nil) throws -> AudioStatus {
        guard case .audioStatus(let status) = try request(.audio(AudioQuery(bundle: id.map { BundleID($0) }))) else {
            throw HarnessError("no AUDIO_STATUS")
        }
        return status
    }

    /// The first stream of an app.
    func stream(_ id: String) throws -> AudioStreamInfo? { try audio(id).streams.first }

    /// Waits until the daemon suspended the app: its log says so, or `ps` does.
    func waitUntilSuspended(_ id: String, timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if daemonLogged("] suspended (", for: id) { return true }
            if let app = try? app(id), app.state == .suspended { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Whether the daemon logged `text` on a line about the app `id`.
    func daemonLogged(_ text: String, for id: String) -> Bool {
        let bundle = "bundle=\(id)"
        for line in daemon.log.split(separator: "\n") where line.contains(bundle) && line.contains(text) {
            return true
        }
        return false
    }

    func appLog(_ id: String) -> String {
        AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(id).log") ?? ""
    }

    /// Sends the player a remote command; the reply waits (up to 10 s) for the app's answer,
    /// off the cooperative pool (``DaemonProcess/request(_:timeout:)``).
    func command(_ command: RemoteCommand, _ argument: String? = nil) async throws -> DaemonMessage.Body {
        try await daemon.request(
            .remoteCommand(RemoteCommandRequest(bundle: BundleID(Self.player), command: command, argument: argument)),
            timeout: .seconds(20))
    }

    func capture(_ name: String) async throws -> PulseCapture {
        try await PulseCapture(pulse: pulse, path: directory.appending(name))
    }

    /// A tone-block signal written as a 44.1 kHz stereo WAV into the player's data directory:
    /// the sandbox lets an app read its own bundle and data, not the test's files.
    func signal(seconds: Int, name: String = "signal.wav") throws -> (ToneBlocks, String) {
        let blocks = ToneBlocks(count: seconds * 4, sampleRate: 44_100)
        let data = daemon.stateDirectory + "/data/" + Self.player
        // Made here when the player has not run yet; its launch gives it to the player's uid.
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let path = data + "/" + name
        try WAVFile.write(samples: blocks.samples(channels: 2), sampleRate: 44_100, channels: 2, to: path)
        chmod(path, 0o644)
        return (blocks, path)
    }

    /// Waits until the player's stream plays.
    func waitUntilPlaying(_ id: String = Self.player) async throws -> Bool {
        await waitUntil { (try? stream(id))??.state == "playing" }
    }

    func tearDown() async {
        await daemon.stop()
        await pulse.stop()
        directory.remove()
    }
}

/// RMS of a stretch of a capture, by seconds.
func level(_ samples: [Double], from start: Double, to end: Double) -> Double {
    let rate = Double(PulseCapture.sampleRate)
    let lower = max(0, min(samples.count, Int(start * rate)))
    let upper = max(lower, min(samples.count, Int(end * rate)))
    return ToneAnalysis.rms(samples[lower..<upper])
}
