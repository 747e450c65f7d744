import BackgrounderTestSupport
import CPulse
import Foundation
import Testing

/// The harness's PulseAudio is real: a tone written through libpulse comes back out of the
/// null sink's monitor, recorded by `parec`.
@Suite(
    "PulseAudio with a null sink",
    .enabled(
        if: Locations.hasProgram("pulseaudio") && Locations.hasProgram("parec"),
        "PulseAudio is not installed (scripts/setup.sh installs it)"), .timeLimit(.minutes(5)), .tearsDown
)
struct PulseAudioHarnessTests {
    static let sampleRate = 44_100.0

    /// Plays `seconds` of a sine tone through libpulse's simple API, then drains.
    static func playTone(server: String, frequency: Double, seconds: Double) throws {
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(sampleRate), channels: 1)
        var error: Int32 = 0
        guard let stream = pa_simple_new(server, "harness", PA_STREAM_PLAYBACK, nil, "tone", &spec, nil, nil, &error)
        else {
            throw HarnessError("pa_simple_new: \(String(cString: pa_strerror(error)))")
        }
        defer { pa_simple_free(stream) }
        let frames = Int(seconds * sampleRate)
        let samples = (0..<frames).map { index -> Int16 in
            Int16(12_000 * sin(2 * Double.pi * frequency * Double(index) / sampleRate))
        }
        let written = samples.withUnsafeBytes { pa_simple_write(stream, $0.baseAddress, $0.count, &error) }
        guard written == 0 else { throw HarnessError("pa_simple_write: \(String(cString: pa_strerror(error)))") }
        guard pa_simple_drain(stream, &error) == 0 else {
            throw HarnessError("pa_simple_drain: \(String(cString: pa_strerror(error)))")
        }
    }

    @Test("a 440 Hz tone played through libpulse is found on the null sink's monitor")
    func toneReachesTheMonitor() async throws {
        let directory = try TemporaryDirectory(prefix: "pulse")
        atTeardown { directory.remove() }
        let pulse = try await PulseAudioServer(directory: directory)
        atTeardown { await pulse.stop() }

        let capturePath = directory.appending("capture.raw")
        let parec = try ChildProcess(
            "/usr/bin/env",
            [
                "parec", "-d", "\(PulseAudioServer.sinkName).monitor", "--raw", "--format=s16le",
                "--rate=\(Int(Self.sampleRate))", "--channels=1", "--latency-msec=20", capturePath,
            ],
            environment: pulse.clientEnvironment,
            logPath: directory.appending("parec.log")
        )
        // parec is recording once the file has begun to fill with the monitor's silence.
        #expect(
            await waitUntil {
                (try? FileManager.default.attributesOfItem(atPath: capturePath)[.size] as? Int ?? 0) ?? 0 > 4410
            })
        try Self.playTone(server: pulse.server, frequency: 440, seconds: 1.0)
        try await Task.sleep(for: .milliseconds(300))
        await parec.stop()

        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: capturePath)))
        let samples = ToneAnalysis.firstChannel(ofS16LE: bytes, channels: 1)
        #expect(samples.count > Int(Self.sampleRate), "parec log: \(parec.output)")

        // Before the tone: silence. Somewhere after: a 100 ms window that is the tone.
        #expect(ToneAnalysis.rms(samples.prefix(2000)) < 0.001)
        let window = 4410
        let best = stride(from: 0, to: samples.count - window, by: window / 2).map { start in
            let slice = Array(samples[start..<start + window])
            return (ToneAnalysis.toneRatio(slice, frequency: 440, sampleRate: Self.sampleRate), ToneAnalysis.rms(slice))
        }.max { $0.0 < $1.0 }
        let (ratio, level) = try #require(best)
        #expect(ratio > 0.9, "the loudest window is not a 440 Hz tone")
        #expect(level > 0.2 && level < 0.3, "12000/32768 peak is 0.26 rms")
        // And it is not just any tone: 1 kHz scores low on the same capture.
        let wrong =
            stride(from: 0, to: samples.count - window, by: window / 2).map { start in
                ToneAnalysis.toneRatio(
                    Array(samples[start..<start + window]), frequency: 1000, sampleRate: Self.sampleRate)
            }.max() ?? 0
        #expect(wrong < 0.05)
    }

    @Test("the daemon connects to PulseAudio, notices it die, and reconnects when it returns")
    func daemonReconnects() async throws {
        let directory = try TemporaryDirectory(prefix: "pulr")
        atTeardown { directory.remove() }
        var pulse = try await PulseAudioServer(directory: directory)
        let daemon = try await DaemonProcess(directory: directory, pulseServer: pulse.server)
        atTeardown { await daemon.stop() }

        #expect(try await waitUntil { try daemon.status().pulseAudio.state == .connected }, "log: \(daemon.log)")
        let connected = try daemon.status().pulseAudio
        #expect(connected.server == pulse.server)
        #expect(connected.detail?.hasPrefix("protocol ") == true)

        await pulse.stop()
        #expect(try await waitUntil { try daemon.status().pulseAudio.state != .connected })
        #expect(daemon.isRunning)

        pulse = try await PulseAudioServer(directory: directory)
        atTeardown { [pulse] in await pulse.stop() }
        #expect(try await waitUntil { try daemon.status().pulseAudio.state == .connected }, "log: \(daemon.log)")
    }
}
