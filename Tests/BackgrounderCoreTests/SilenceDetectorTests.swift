import BackgrounderCore
import Foundation
import Testing

/// Silence measured in the audio: digital silence and dither reach the limit, sound resets it.
@Suite("Silence detector")
struct SilenceDetectorTests {
    static let format = AudioFormat(sampleFormat: .s16le, sampleRate: 1_000, channels: 1)

    static func bytes(_ samples: [Int16]) -> [UInt8] {
        samples.flatMap { withUnsafeBytes(of: $0.littleEndian) { Array($0) } }
    }

    @Test("silence counts only once it lasted the limit, in the stream's own time; sound gives the stream back")
    func limitInAudioTime() {
        var detector = SilenceDetector(limit: .seconds(2), format: Self.format)
        let second = Self.bytes(Array(repeating: 0, count: 1_000))
        #expect(second.withUnsafeBytes { detector.observe($0) } == nil)
        #expect(!detector.isSilent)
        #expect(second.withUnsafeBytes { detector.observe($0) } == .becameSilent)
        #expect(detector.isSilent)
        #expect(second.withUnsafeBytes { detector.observe($0) } == nil, "said once")
        let tone = Self.bytes((0..<1_000).map { Int16(8_000 * sin(Double($0) / 10)) })
        #expect(tone.withUnsafeBytes { detector.observe($0) } == .soundReturned)
        #expect(!detector.isSilent && detector.silentBytes == 0)
        // A blip in the silence starts the count again.
        #expect(second.withUnsafeBytes { detector.observe($0) } == nil)
        #expect(Self.bytes([0, 300, 0]).withUnsafeBytes { detector.observe($0) } == nil)
        #expect(second.withUnsafeBytes { detector.observe($0) } == nil)
        #expect(!detector.isSilent)
    }

    @Test("dither of one step counts as silence; float silence too, and a quiet float signal does not")
    func whatIsSilent() {
        #expect(Self.bytes([0, 1, -1, 0]).withUnsafeBytes { SilenceDetector.isQuiet($0, .s16le) })
        #expect(!Self.bytes([0, 2, 0]).withUnsafeBytes { SilenceDetector.isQuiet($0, .s16le) })
        let quietFloat: [Float] = [0, 1e-6, -1e-6]
        let audibleFloat: [Float] = [0, 0.001, 0]
        func floatBytes(_ samples: [Float]) -> [UInt8] {
            samples.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian) { Array($0) } }
        }
        #expect(floatBytes(quietFloat).withUnsafeBytes { SilenceDetector.isQuiet($0, .float32le) })
        #expect(!floatBytes(audibleFloat).withUnsafeBytes { SilenceDetector.isQuiet($0, .float32le) })
    }
}
