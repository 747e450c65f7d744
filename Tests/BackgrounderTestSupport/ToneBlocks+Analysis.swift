import Foundation

extension ToneBlocks {
    /// Checks a recording of a ``ToneBlocks`` signal for gaps, losses and reordering.
    ///
    /// The recording is analysed at its own rate, so one resampled on the way (a sound server at
    /// 48 kHz playing a 44.1 kHz file) is fine, as is silence before and after the signal.
    /// Silence is found sample by sample; each block's tone in 50 ms windows every 10 ms, and
    /// the boundary between two blocks from how the two tones share the windows straddling it,
    /// to about a millisecond. So silences over `minimumGap` show as gaps, audio lost without a
    /// silence as a block short by more than `tolerance`, and noise of about 10 ms or more as an
    /// unrecognised stretch.
    /// - Parameters:
    ///   - capture: The recording, one channel, in -1...1.
    ///   - sampleRate: The recording's rate.
    ///   - blockDuration: The signal's seconds per block.
    ///   - frequencies: The signal's tones, in the order blocks use them.
    ///   - tolerance: Seconds a block's length may be off before it counts as a break.
    ///   - minimumGap: Seconds of silence that count as a gap.
    /// - Returns: What was heard and what was wrong with it.
    public static func analyze(
        _ capture: [Double], sampleRate: Int, blockDuration: Double = 0.25,
        frequencies: [Double] = standardFrequencies, tolerance: Double = 0.004, minimumGap: Double = 0.005
    ) -> ToneBlockReport {
        let rate = Double(sampleRate)
        let peak = capture.reduce(0) { max($0, abs($1)) }
        // 40 dB under the peak: well above a resampler's residue, far below any tone's level
        // except within microseconds of a zero crossing.
        let threshold = peak / 100
        guard peak > 0, let first = capture.firstIndex(where: { abs($0) > threshold }),
            let last = capture.lastIndex(where: { abs($0) > threshold })
        else { return ToneBlockReport(signalStart: nil, playedDuration: 0, labels: [], gaps: [], orderBreaks: []) }

        let signal = capture[first...last]
        let silences = silentStretches(in: signal, threshold: threshold, longerThan: Int(minimumGap * rate))
        let windows = ToneWindows(signal, sampleRate: sampleRate, frequencies: frequencies)
        let labels = (0..<windows.count).map { windows.label($0) }
        let runs = runs(of: labels)
        let spans = spans(of: runs, windows: windows, silences: silences, signalLength: signal.count)

        var orderBreaks: [ToneBlockReport.OrderBreak] = []
        for (index, run) in runs.enumerated() {
            let span = spans[index]
            let position = Double(span.lowerBound) / rate
            if index > 0 {
                let expected = (runs[index - 1].label + 1) % frequencies.count
                if run.label != expected {
                    orderBreaks.append(
                        .init(kind: .unexpectedLabel(expected: expected, found: run.label), position: position))
                }
            }
            let heard = span.count - silences.reduce(0) { $0 + $1.clamped(to: span).count }
            let duration = Double(heard) / rate
            if abs(duration - blockDuration) > tolerance {
                orderBreaks.append(.init(kind: .wrongLength(duration), position: position))
            }
        }

        let unrecognized = unrecognizedStretches(
            runs: runs, spans: spans, windows: windows, silences: silences, longerThan: Int(minimumGap * rate))
        func gap(_ kind: ToneBlockReport.Gap.Kind, _ stretch: Range<Int>) -> ToneBlockReport.Gap {
            .init(kind: kind, position: Double(stretch.lowerBound) / rate, duration: Double(stretch.count) / rate)
        }
        let gaps = (silences.map { gap(.silence, $0) } + unrecognized.map { gap(.unrecognized, $0) })
            .sorted { $0.position < $1.position }
        return ToneBlockReport(
            signalStart: Double(first) / rate, playedDuration: Double(signal.count) / rate, labels: runs.map(\.label),
            gaps: gaps, orderBreaks: orderBreaks)
    }

    /// Consecutive windows with one tone; windows with none (a boundary, a gap) in between do
    /// not split a run.
    private struct Run {
        var label: Int
        var firstWindow: Int
        var lastWindow: Int
    }

    private static func runs(of labels: [Int?]) -> [Run] {
        var runs: [Run] = []
        for (window, label) in labels.enumerated() {
            guard let label else { continue }
            if runs.last?.label == label {
                runs[runs.count - 1].lastWindow = window
            } else {
                runs.append(Run(label: label, firstWindow: window, lastWindow: window))
            }
        }
        return runs
    }

    /// Samples at or under the threshold for longer than `minimum`, as offsets into the signal.
    private static func silentStretches(
        in signal: ArraySlice<Double>, threshold: Double, longerThan minimum: Int
    ) -> [Range<Int>] {
        var stretches: [Range<Int>] = []
        var start: Int?
        for (offset, sample) in signal.enumerated() {
            if abs(sample) <= threshold {
                if start == nil { start = offset }
            } else if let began = start {
                if offset - began > minimum { stretches.append(began..<offset) }
                start = nil
            }
        }
        return stretches
    }

    /// Where each run's block lies in the signal: from the first sound or the previous boundary
    /// to the next boundary or the last sound.
    private static func spans(
        of runs: [Run], windows: ToneWindows, silences: [Range<Int>], signalLength: Int
    ) -> [Range<Int>] {
        guard !runs.isEmpty else { return [] }
        var starts = [0]
        var ends: [Int] = []
        for (before, after) in zip(runs, runs.dropFirst()) {
            let lastBefore = before.lastWindow
            let firstAfter = after.firstWindow
            // A silence between the two windows' middles is the boundary: the block before ends
            // where it starts, the one after begins where it ends.
            let middleBefore = windows.start(lastBefore) + windows.length / 2
            let middleAfter = windows.start(firstAfter) + windows.length / 2
            let between = silences.filter { $0.overlaps(middleBefore..<max(middleBefore, middleAfter)) }
            if let firstSilence = between.first, let lastSilence = between.last {
                ends.append(firstSilence.lowerBound)
                starts.append(lastSilence.upperBound)
            } else {
                let boundary = self.boundary(between: before, and: after, windows: windows)
                ends.append(boundary)
                starts.append(boundary)
            }
        }
        ends.append(signalLength)
        return zip(starts, ends).map { $0..<max($0, $1) }
    }

    /// Where one tone gives way to the next: in a window holding a share f of the first tone and
    /// 1 - f of the second, their power ratios are f² and (1 - f)², so each straddling window
    /// places the boundary at its start plus f of its length; the estimates are averaged.
    private static func boundary(between before: Run, and after: Run, windows: ToneWindows) -> Int {
        var estimates: [Double] = []
        for window in before.lastWindow...after.firstWindow {
            let first = windows.ratio(window, tone: before.label).squareRoot()
            let second = windows.ratio(window, tone: after.label).squareRoot()
            // Windows that are mostly something else (a gap, noise) say nothing about the boundary.
            guard first + second > 0.7 else { continue }
            let share = first / (first + second)
            guard share > 0.02, share < 0.98 else { continue }
            estimates.append(Double(windows.start(window)) + share * Double(windows.length))
        }
        guard !estimates.isEmpty else {
            // Hops that fall exactly on the boundary leave no straddling window.
            return (windows.start(before.lastWindow) + windows.length + windows.start(after.firstWindow)) / 2
        }
        return Int((estimates.reduce(0, +) / Double(estimates.count)).rounded())
    }

    /// Sound inside a block that is not the block's tone: runs of hops (silence left out) whose
    /// power is less than half that tone's. A single hop is not enough, as a cut that leaves the
    /// tone's phase jumping spoils the one hop it falls in without anything missing there.
    private static func unrecognizedStretches(
        runs: [Run], spans: [Range<Int>], windows: ToneWindows, silences: [Range<Int>], longerThan minimum: Int
    ) -> [Range<Int>] {
        var stretches: [Range<Int>] = []
        var current: Range<Int>?
        func close() {
            if let stretch = current, stretch.count > max(minimum, windows.hop) { stretches.append(stretch) }
            current = nil
        }
        for (run, span) in zip(runs, spans) {
            // Only hops wholly inside the block: one straddling a boundary holds two tones.
            let firstHop = (span.lowerBound + windows.hop - 1) / windows.hop
            for hop in firstHop..<max(firstHop, span.upperBound / windows.hop) {
                let samples = windows.samples(ofHop: hop)
                let silent = silences.reduce(0) { $0 + $1.clamped(to: samples).count }
                // Silence is a gap of its own; what is left of the hop is judged alone.
                guard silent * 2 < samples.count else {
                    close()
                    continue
                }
                let share =
                    windows.hopRatio(hop, tone: run.label) * Double(samples.count) / Double(samples.count - silent)
                if share >= 0.5 {
                    close()
                } else if let stretch = current, samples.lowerBound - stretch.upperBound <= windows.hop {
                    // Also across the one hop skipped at a boundary: noise over it is one stretch.
                    current = stretch.lowerBound..<samples.upperBound
                } else {
                    close()
                    current = samples
                }
            }
        }
        close()
        return stretches
    }
}
