import BackgroundKit
import Foundation

/// The `tone` behaviour (plays a 440 Hz tone for as long as it runs, playback category; with
/// `tone-duck`, ducking others instead of interrupting them) and
/// the `record` one (records the default source into `recording.raw` in its data directory,
/// s16le mono 44.1 kHz, record category), and `streams` (opens streams until refused), for the
/// audio tests.
@MainActor
final class AudioBehavior {
    nonisolated static let format = AudioFormat(sampleFormat: .s16le, sampleRate: 44_100, channels: 1)
    private var task: Task<Void, Never>?

    private var outputs: [AudioOutput] = []

    init(_ behavior: String) {
        do {
            if behavior == "streams" {
                // Opens streams until the daemon refuses one: it must, with a reason.
                try AudioSession.shared.setCategory(.playback)
                for _ in 0..<100 { outputs.append(try AudioOutput(format: Self.format, bufferDuration: 0.1)) }
                say("opened 100 streams")
                return
            }
            if behavior.hasPrefix("tone") {
                try AudioSession.shared.setCategory(.playback, options: behavior == "tone-duck" ? [.duckOthers] : [])
                let output = try AudioOutput(format: Self.format, bufferDuration: 0.5)
                try output.start()
                say("playing a tone")
                task = Task.detached { await Self.playTone(output) }
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

    private nonisolated static func playTone(_ output: AudioOutput) async {
        let frames = 4410
        var phase = 0.0
        let step = 2 * Double.pi * 440 / Double(format.sampleRate)
        var samples = [Int16](repeating: 0, count: frames)
        do {
            while true {
                for index in 0..<frames {
                    samples[index] = Int16(12_000 * sin(phase))
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
