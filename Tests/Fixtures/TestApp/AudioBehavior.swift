import BackgroundKit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The `tone` behaviour (plays a 440 Hz tone for as long as it runs, playback category; with
/// `tone-duck`, ducking others instead of interrupting them; a new stream after the daemon restarts;
/// with `silence`, the same stream carrying only zeros and mixing with others, as an app that
/// plays silence to stay awake) and
/// the `record` one (records the default source into `recording.raw` in its data directory,
/// s16le mono 44.1 kHz, record category), `streams` (opens streams until refused), and
/// `doorbell-flood` (opens a stream, then two Python processes write its wake-up socket as
/// fast as it takes bytes, as a hostile app would), for the audio tests and the benchmark.
@MainActor
final class AudioBehavior {
    nonisolated static let format = AudioFormat(sampleFormat: .s16le, sampleRate: 44_100, channels: 1)
    private var task: Task<Void, Never>?

    private var outputs: [AudioOutput] = []
    /// The tone's peak; 0 plays digital silence.
    private var amplitude = 12_000.0

    init(_ behavior: String) {
        do {
            if behavior == "doorbell-flood" {
                // Ambient mixes with others: the flood must be the only thing this app does to them.
                try AudioSession.shared.setCategory(.ambient)
                outputs.append(try AudioOutput(format: Self.format, bufferDuration: 0.1))
                guard let doorbell = Self.audioSocket() else {
                    say("audio failed: no descriptor connected to the audio socket")
                    return
                }
                for index in 0..<2 { Self.flood(doorbell, index) }
                say("flooding the doorbell (descriptor \(doorbell)) from 2 processes")
                return
            }
            if behavior == "streams" {
                // Opens streams until the daemon refuses one: it must, with a reason.
                try AudioSession.shared.setCategory(.playback)
                for _ in 0..<100 { outputs.append(try AudioOutput(format: Self.format, bufferDuration: 0.1)) }
                say("opened 100 streams")
                return
            }
            if behavior.hasPrefix("tone") || behavior == "silence" {
                // Silence mixes with others, so it interrupts no one: its own rule is what a test sees.
                let options: AudioSessionOptions =
                    behavior == "tone-duck" ? [.duckOthers] : behavior == "silence" ? [.mixWithOthers] : []
                try AudioSession.shared.setCategory(.playback, options: options)
                amplitude = behavior == "silence" ? 0 : 12_000
                try startTone()
                say(amplitude == 0 ? "playing silence" : "playing a tone")
                // A restarted daemon lost the stream: open another and play on, as an iOS app
                // does on mediaServicesWereResetNotification (the restart benchmark needs it).
                AudioSession.shared.addMediaServicesResetObserver { [weak self] in self?.toneWasReset() }
            } else {
                try AudioSession.shared.setCategory(.record)
                try AudioSession.shared.setActive(true)
                let input = try AudioInput(format: Self.format)
                try input.start()
                let path = (Application.dataDirectory ?? ".") + "/recording.raw"
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                guard let file = FileHandle(forWritingAtPath: path) else {
                    say("audio failed: cannot write \(path)")
                    return
                }
                say("recording to \(path)")
                task = Task.detached { await Self.record(input, into: file) }
            }
        } catch {
            // The clear error a test looks for, such as a missing microphone grant.
            say("audio failed: \(error)")
        }
    }

    /// Opens a playback stream and plays the tone into it until the stream fails.
    private func startTone() throws {
        let output = try AudioOutput(format: Self.format, bufferDuration: 0.5)
        try output.start()
        outputs = [output]
        task = Task.detached { [amplitude] in await Self.playTone(output, amplitude: amplitude) }
    }

    private func toneWasReset() {
        do {
            try startTone()
            say("playing a tone again after media services were reset")
        } catch {
            say("audio failed after the reset: \(error)")
        }
    }

    /// The descriptor connected to the daemon's audio socket: the stream's wake-up channel.
    private static func audioSocket() -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in entries.compactMap(Int32.init).sorted() {
            var address = sockaddr_un()
            var length = socklen_t(MemoryLayout<sockaddr_un>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
            }
            guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { continue }
            let path = withUnsafeBytes(of: address.sun_path) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if path.hasSuffix("-audio.sock") { return descriptor }
        }
        return nil
    }

    /// A Python process, in this app's process group and cgroup, that writes the doorbell
    /// (inherited as descriptor 200) as fast as the socket takes it.
    private static func flood(_ doorbell: Int32, _ index: Int) {
        let script = """
            import os
            print("flooder \(index) running", flush=True)
            block = bytes(65536)
            while True:
                os.write(200, block)
            """
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, doorbell, 200)
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/usr/bin/python3"), strdup("-c"), strdup(script), nil]
        defer { argv.forEach { free($0) } }
        let result = posix_spawn(&pid, "/usr/bin/python3", &actions, nil, argv, environ)
        say(result == 0 ? "flooder \(index) is pid \(pid)" : "audio failed: cannot start a flooder: \(result)")
    }

    private nonisolated static func playTone(_ output: AudioOutput, amplitude: Double) async {
        let frames = 4410
        var phase = 0.0
        let step = 2 * Double.pi * 440 / Double(format.sampleRate)
        var samples = [Int16](repeating: 0, count: frames)
        do {
            while true {
                for index in 0..<frames {
                    samples[index] = Int16(amplitude * sin(phase))
                    phase += step
                }
                phase = phase.truncatingRemainder(dividingBy: 2 * Double.pi)
                try await output.write(samples)
            }
        } catch {
            say("audio failed: \(error)")
        }
    }

    private nonisolated static func record(_ input: AudioInput, into file: FileHandle) async {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 44_100, alignment: 2)
        defer { buffer.deallocate() }
        do {
            while true {
                let count = try await input.read(into: buffer)
                file.write(Data(buffer[..<count]))
            }
        } catch {
            say("audio failed: \(error)")
        }
    }
}
