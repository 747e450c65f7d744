import Foundation

/// A test signal that shows whether audio arrived whole and in order: back-to-back blocks of pure
/// tones, block n at `frequencies[n % frequencies.count]`, with the phase carried across blocks so
/// there are no clicks. A recording of it is checked with ``analyze(_:sampleRate:blockDuration:frequencies:tolerance:minimumGap:)``.
public struct ToneBlocks: Sendable {
    /// Seconds per block.
    public var blockDuration: Double
    /// Blocks in the signal.
    public var count: Int
    /// Frames per second of the generated samples.
    public var sampleRate: Int
    /// The tones, in the order blocks use them.
    public var frequencies: [Double]
    /// Peak level, in 0...1 of full scale.
    public var amplitude: Double

    /// Sixteen tones from 600 to 2100 Hz, 100 Hz apart: a 50 ms window holds a whole number of
    /// periods of each, so they do not leak into each other. They alternate between the low and
    /// the high half (600, 1400, 700, 1500, …) so that neighbouring blocks are at least 700 Hz
    /// apart, which keeps the estimate of where one block ends and the next begins sharp.
    public static let standardFrequencies: [Double] = (0..<16).map { index in
        Double((index.isMultiple(of: 2) ? 600 : 1400) + index / 2 * 100)
    }

    /// Creates a signal.
    /// - Parameters:
    ///   - blockDuration: Seconds per block.
    ///   - count: Blocks in the signal.
    ///   - sampleRate: Frames per second.
    ///   - frequencies: The tones, in the order blocks use them; the analyzer must be given the same.
    ///   - amplitude: Peak level, in 0...1 of full scale.
    public init(
        blockDuration: Double = 0.25, count: Int, sampleRate: Int, frequencies: [Double] = standardFrequencies,
        amplitude: Double = 0.5
    ) {
        self.blockDuration = blockDuration
        self.count = count
        self.sampleRate = sampleRate
        self.frequencies = frequencies
        self.amplitude = amplitude
    }

    /// Frames in the signal.
    public var frames: Int { blockStart(count) }

    /// Seconds the signal lasts.
    public var duration: Double { Double(frames) / Double(sampleRate) }

    /// The labels a perfect recording decodes to: each block's tone index, in order.
    public var expectedLabels: [Int] { (0..<count).map { $0 % frequencies.count } }

    /// The signal as 16-bit samples.
    /// - Parameter channels: Interleaved channels, each carrying the same signal.
    /// - Returns: `frames * channels` samples.
    public func samples(channels: Int = 1) -> [Int16] {
        var samples = [Int16]()
        samples.reserveCapacity(frames * channels)
        var phase = 0.0
        for block in 0..<count {
            let step = 2 * Double.pi * frequencies[block % frequencies.count] / Double(sampleRate)
            for _ in blockStart(block)..<blockStart(block + 1) {
                let value = Int16((amplitude * 32767 * sin(phase)).rounded())
                for _ in 0..<channels { samples.append(value) }
                // Only the step changes between blocks, so the waveform continues without a jump.
                phase += step
                if phase >= 2 * Double.pi { phase -= 2 * Double.pi }
            }
        }
        return samples
    }

    /// The first frame of block `index`; rounding each boundary (rather than each block's
    /// length) keeps the blocks from drifting off the time grid.
    private func blockStart(_ index: Int) -> Int {
        Int((Double(index) * blockDuration * Double(sampleRate)).rounded())
    }
}
