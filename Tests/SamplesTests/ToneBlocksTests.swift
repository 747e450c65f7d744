import BackgrounderTestSupport
import Testing

@Suite("ToneBlocks, the signal that shows gaps and losses in played audio", .timeLimit(.minutes(5)))
struct ToneBlocksTests {
    /// 14 s at 44.1 kHz: 56 blocks, three and a half rounds of the sixteen tones (short, as the
    /// analysis is heavy in a debug build and shares the machine with the integration tests).
    private static let signal = ToneBlocks(count: 56, sampleRate: 44100)
    private static let rate = 44100

    private static func mono(_ samples: [Int16]) -> [Double] { samples.map { Double($0) / 32768 } }

    private static func index(_ seconds: Double, rate: Int = rate) -> Int { Int(seconds * Double(rate)) }

    @Test("a clean signal decodes to every block in order, without gaps or breaks")
    func clean() throws {
        let report = ToneBlocks.analyze(Self.mono(Self.signal.samples()), sampleRate: Self.rate)
        #expect(report.labels == Self.signal.expectedLabels, "\(report)")
        #expect(report.isSeamless, "\(report)")
        #expect(abs(report.playedDuration - 14) < 0.001)
        #expect(try #require(report.signalStart) < 0.001)
    }

    @Test("the tones are distinct and each block continues the last one's phase: no clicks")
    func continuous() {
        let frequencies = ToneBlocks.standardFrequencies
        #expect(Set(frequencies).count == 16)
        #expect(frequencies.min() == 600 && frequencies.max() == 2100)
        let samples = Self.signal.samples()
        #expect(samples.count == Self.signal.frames && Self.signal.frames == 14 * Self.rate)
        // The steepest a 2100 Hz sine at half scale gets between two samples, plus rounding.
        let steepest = 0.5 * 32767 * 2 * Double.pi * 2100 / Double(Self.rate) + 2
        let jumps = zip(samples, samples.dropFirst()).map { abs(Double($1) - Double($0)) }
        #expect(jumps.max()! <= steepest)
        let stereo = Self.signal.samples(channels: 2)
        #expect(stereo.count == 2 * samples.count)
        #expect(stereo.enumerated().allSatisfy { $0.element == samples[$0.offset / 2] })
    }

    @Test("20 ms cut out, without a silence, is a break at the cut and no gap")
    func cut() {
        var capture = Self.mono(Self.signal.samples())
        capture.removeSubrange(Self.index(5.1)..<Self.index(5.12))
        let report = ToneBlocks.analyze(capture, sampleRate: Self.rate)
        #expect(report.labels == Self.signal.expectedLabels, "\(report)")
        #expect(report.gaps.isEmpty, "\(report)")
        #expect(!report.orderBreaks.isEmpty, "\(report)")
        #expect(report.orderBreaks.allSatisfy { abs($0.position - 5.1) < 0.3 }, "\(report)")
    }

    @Test("30 ms of silence inserted is a 30 ms gap where it was inserted, and nothing lost")
    func insertedSilence() throws {
        var capture = Self.mono(Self.signal.samples())
        capture.insert(contentsOf: repeatElement(0, count: Self.index(0.03)), at: Self.index(7.3))
        let report = ToneBlocks.analyze(capture, sampleRate: Self.rate)
        #expect(report.labels == Self.signal.expectedLabels, "\(report)")
        #expect(report.orderBreaks.isEmpty, "\(report)")
        let gap = try #require(report.gaps.only, "\(report)")
        #expect(gap.kind == .silence)
        #expect(abs(gap.position - 7.3) < 0.001, "\(report)")
        #expect(abs(gap.duration - 0.03) < 0.001, "\(report)")
    }

    @Test("30 ms of audio replaced by silence is a gap and a block 30 ms short")
    func replacedBySilence() throws {
        var capture = Self.mono(Self.signal.samples())
        let start = Self.index(12.6)
        capture.replaceSubrange(start..<(start + Self.index(0.03)), with: repeatElement(0, count: Self.index(0.03)))
        let report = ToneBlocks.analyze(capture, sampleRate: Self.rate)
        #expect(report.labels == Self.signal.expectedLabels, "\(report)")
        let gap = try #require(report.gaps.only, "\(report)")
        #expect(abs(gap.position - 12.6) < 0.001 && abs(gap.duration - 0.03) < 0.001, "\(report)")
        let broken = try #require(report.orderBreaks.only, "\(report)")
        guard case .wrongLength(let duration) = broken.kind else {
            Issue.record("\(report)")
            return
        }
        #expect(abs(duration - 0.22) < 0.005 && abs(broken.position - 12.5) < 0.005, "\(report)")
    }

    @Test("a stretch played again is a break in the order")
    func repeated() {
        var capture = Self.mono(Self.signal.samples())
        // 100 ms of block 10, played again as block 12 should begin.
        capture.insert(contentsOf: capture[Self.index(2.6)..<Self.index(2.7)], at: Self.index(3.0))
        let report = ToneBlocks.analyze(capture, sampleRate: Self.rate)
        #expect(report.labels == Array(Self.signal.expectedLabels[0...11]) + [10] + Self.signal.expectedLabels[12...])
        #expect(
            report.orderBreaks.contains {
                $0.kind == .unexpectedLabel(expected: 12, found: 10) && abs($0.position - 3) < 0.01
            },
            "\(report)")
        #expect(report.gaps.isEmpty, "\(report)")
    }

    @Test("20 ms of noise in place of the signal is an unrecognised stretch, and nothing lost")
    func noise() throws {
        var capture = Self.mono(Self.signal.samples())
        var generator = SeededGenerator(seed: 5)
        for index in Self.index(9.105)..<Self.index(9.125) {
            capture[index] = .random(in: -0.5...0.5, using: &generator)
        }
        let report = ToneBlocks.analyze(capture, sampleRate: Self.rate)
        #expect(report.labels == Self.signal.expectedLabels, "\(report)")
        #expect(report.orderBreaks.isEmpty, "\(report)")
        let gap = try #require(report.gaps.only, "\(report)")
        #expect(gap.kind == .unrecognized)
        // Whole 10 ms hops: the noise touches three.
        #expect(gap.position <= 9.105 && gap.position + gap.duration >= 9.125 && gap.duration <= 0.04, "\(report)")
    }

    @Test("resampled from 44.1 to 48 kHz, the signal is still whole")
    func resampled() {
        let source = Self.mono(Self.signal.samples())
        let step = 44100.0 / 48000
        let capture = (0..<Int(Double(source.count - 1) / step)).map { index in
            let position = Double(index) * step
            let before = Int(position)
            let fraction = position - Double(before)
            return source[before] * (1 - fraction) + source[before + 1] * fraction
        }
        let report = ToneBlocks.analyze(capture, sampleRate: 48000)
        #expect(report.labels == Self.signal.expectedLabels, "\(report)")
        #expect(report.isSeamless, "\(report)")
        #expect(abs(report.playedDuration - 14) < 0.001)
    }

    @Test("silence before and after the signal is neither a gap nor a break")
    func surroundingSilence() throws {
        let capture =
            [Double](repeating: 0, count: Self.index(0.5)) + Self.mono(Self.signal.samples())
            + [Double](repeating: 0, count: Self.index(0.7))
        let report = ToneBlocks.analyze(capture, sampleRate: Self.rate)
        #expect(report.labels == Self.signal.expectedLabels, "\(report)")
        #expect(report.isSeamless, "\(report)")
        #expect(abs(try #require(report.signalStart) - 0.5) < 0.001)
        #expect(abs(report.playedDuration - 14) < 0.001)
    }

    @Test("a recording that starts late, or is shorter than a window, is analysed as far as it goes")
    func fragments() {
        let samples = Self.mono(Self.signal.samples())
        let late = ToneBlocks.analyze(Array(samples[Self.index(3.1)...]), sampleRate: Self.rate)
        #expect(late.labels == Array(Self.signal.expectedLabels[12...]), "\(late)")
        // Only the first block heard is short: it was joined part way through.
        #expect(late.orderBreaks.map(\.position) == [0], "\(late)")
        #expect(late.gaps.isEmpty, "\(late)")
        for length in [1, 100, Self.index(0.03), Self.index(0.06)] {
            let start = Self.index(1.01)
            let report = ToneBlocks.analyze(Array(samples[start..<(start + length)]), sampleRate: Self.rate)
            #expect(report.labels.count <= 1, "\(report)")
        }
    }

    @Test("a silent recording holds nothing")
    func silent() {
        let report = ToneBlocks.analyze([Double](repeating: 0, count: Self.rate), sampleRate: Self.rate)
        #expect(report.signalStart == nil)
        #expect(report.labels.isEmpty && report.isSeamless && report.playedDuration == 0)
    }
}

extension Collection {
    /// The one element, nil when there are none or several.
    fileprivate var only: Element? { count == 1 ? first : nil }
}
