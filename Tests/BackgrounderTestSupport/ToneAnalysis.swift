import Foundation

/// Finds a sine tone in recorded PCM, to prove that what a test played really reached the
/// sound server.
public enum ToneAnalysis {
    /// Interleaved signed 16-bit little-endian samples as Doubles in -1...1, first channel only.
    public static func firstChannel(ofS16LE data: [UInt8], channels: Int) -> [Double] {
        let frameBytes = 2 * channels
        let frames = data.count / frameBytes
        return (0..<frames).map { frame in
            let offset = frame * frameBytes
            let value = Int16(bitPattern: UInt16(data[offset]) | UInt16(data[offset + 1]) << 8)
            return Double(value) / 32768
        }
    }

    /// Root-mean-square level.
    public static func rms(_ samples: some Collection<Double>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0) { $0 + $1 * $1 } / Double(samples.count)).squareRoot()
    }

    /// Power of one frequency relative to the signal's total power (Goertzel), in 0...1.
    /// A pure tone at `frequency` scores near 1, silence or other tones near 0.
    public static func toneRatio(_ samples: [Double], frequency: Double, sampleRate: Double) -> Double {
        guard samples.count > 1 else { return 0 }
        let omega = 2 * Double.pi * frequency / sampleRate
        let coefficient = 2 * cos(omega)
        var previous = 0.0
        var beforePrevious = 0.0
        for sample in samples {
            let current = sample + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        let total = samples.reduce(0) { $0 + $1 * $1 }
        guard total > 0 else { return 0 }
        // A sinusoid of N samples carries N/2 * A^2 total power and N^2/4 * A^2 Goertzel power.
        return power / (total * Double(samples.count) / 2)
    }
}
