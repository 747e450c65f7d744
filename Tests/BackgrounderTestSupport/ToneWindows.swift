import Foundation

/// How much of each tone is in 50 ms windows taken every 10 ms across a signal, and in each
/// 10 ms hop.
///
/// Each 10 ms hop is correlated once with every tone, against a phase reference common to the
/// whole signal, so a window's correlation is the sum of its five hops': the work grows with the
/// signal's length times the number of tones, not times the window's length too.
struct ToneWindows {
    /// Samples between the starts of consecutive windows.
    let hop: Int
    /// Samples per window (the last may hold fewer).
    let length: Int
    /// Windows in the signal.
    let count: Int
    /// Hops in the signal.
    let hopCount: Int
    private let signalLength: Int
    private let toneCount: Int
    /// `ratios[window * toneCount + tone]`: the share of the window's power at that tone, 0...1.
    private let ratios: [Double]
    /// `hopRatios[hop * toneCount + tone]`: the same for each hop.
    private let hopRatios: [Double]

    private static let hopsPerWindow = 5

    /// Measures a signal.
    /// - Parameters:
    ///   - signal: The samples, from the signal's first sound.
    ///   - sampleRate: Their rate.
    ///   - frequencies: The tones.
    init(_ signal: ArraySlice<Double>, sampleRate: Int, frequencies: [Double]) {
        let hop = max(1, Int((Double(sampleRate) / 100).rounded()))
        let toneCount = frequencies.count
        let hopCount = (signal.count + hop - 1) / hop
        var real = [Double](repeating: 0, count: hopCount * toneCount)
        var imaginary = real
        var energy = [Double](repeating: 0, count: hopCount)
        signal.withUnsafeBufferPointer { samples in
            for hopIndex in 0..<hopCount {
                let range = (hopIndex * hop)..<min((hopIndex + 1) * hop, samples.count)
                energy[hopIndex] = range.reduce(0) { $0 + samples[$1] * samples[$1] }
                for (tone, frequency) in frequencies.enumerated() {
                    let omega = 2 * Double.pi * frequency / Double(sampleRate)
                    // e^(-iωn) by rotation within the hop, restarted from the exact value at each
                    // hop so rounding never accumulates over a minute of samples.
                    var cosine = cos(omega * Double(range.lowerBound))
                    var sine = -sin(omega * Double(range.lowerBound))
                    let stepCosine = cos(omega)
                    let stepSine = -sin(omega)
                    var sumReal = 0.0
                    var sumImaginary = 0.0
                    for index in range {
                        sumReal += samples[index] * cosine
                        sumImaginary += samples[index] * sine
                        (cosine, sine) = (cosine * stepCosine - sine * stepSine, cosine * stepSine + sine * stepCosine)
                    }
                    real[hopIndex * toneCount + tone] = sumReal
                    imaginary[hopIndex * toneCount + tone] = sumImaginary
                }
            }
        }
        /// The share of a run of hops' power at a tone. A sinusoid filling N samples has
        /// N/2·A² energy and a correlation of N/2·A.
        func share(of hops: Range<Int>, tone: Int) -> Double {
            let samples = min(hops.upperBound * hop, signal.count) - hops.lowerBound * hop
            let totalEnergy = hops.reduce(0) { $0 + energy[$1] }
            guard totalEnergy > 0 else { return 0 }
            let sumReal = hops.reduce(0) { $0 + real[$1 * toneCount + tone] }
            let sumImaginary = hops.reduce(0) { $0 + imaginary[$1 * toneCount + tone] }
            return (sumReal * sumReal + sumImaginary * sumImaginary) / (totalEnergy * Double(samples) / 2)
        }
        let count = hopCount == 0 ? 0 : max(1, hopCount - Self.hopsPerWindow + 1)
        let tones = 0..<toneCount
        self.hop = hop
        self.length = hop * Self.hopsPerWindow
        self.count = count
        self.hopCount = hopCount
        self.signalLength = signal.count
        self.toneCount = toneCount
        ratios = (0..<count).flatMap { window in
            tones.map { share(of: window..<min(window + Self.hopsPerWindow, hopCount), tone: $0) }
        }
        hopRatios = (0..<hopCount).flatMap { index in tones.map { share(of: index..<(index + 1), tone: $0) } }
    }

    /// The first sample of a window.
    func start(_ window: Int) -> Int { window * hop }

    /// The share of a window's power at a tone: near 1 when the window holds only that tone,
    /// the square of the tone's share of the window when it holds two, its share when the rest
    /// is silence.
    func ratio(_ window: Int, tone: Int) -> Double { ratios[window * toneCount + tone] }

    /// The samples of a hop.
    func samples(ofHop hop: Int) -> Range<Int> { (hop * self.hop)..<min((hop + 1) * self.hop, signalLength) }

    /// The share of a hop's power at a tone, as ``ratio(_:tone:)`` for a window.
    func hopRatio(_ hop: Int, tone: Int) -> Double { hopRatios[hop * toneCount + tone] }

    /// The tone that fills more than half of a window's power, if one does.
    func label(_ window: Int) -> Int? {
        let tones = 0..<toneCount
        guard let best = tones.max(by: { ratio(window, tone: $0) < ratio(window, tone: $1) }),
            ratio(window, tone: best) > 0.5
        else { return nil }
        return best
    }
}
