import Foundation

/// What ``ToneBlocks/analyze(_:sampleRate:blockDuration:frequencies:tolerance:minimumGap:)``
/// found in a recording. Positions are seconds from the start of the signal in the recording.
public struct ToneBlockReport: Sendable, CustomStringConvertible {
    /// A stretch between the first and last sound that is not the signal.
    public struct Gap: Sendable, Hashable, CustomStringConvertible {
        /// What filled the stretch.
        public enum Kind: Sendable, Hashable {
            /// Nothing: an underrun, or a stream stopped and restarted.
            case silence
            /// Sound that is not the block's tone: noise or mangled samples. Judged per 10 ms hop,
            /// so stretches of about 10 ms or more show, rounded out to whole hops.
            case unrecognized
        }

        /// What filled the stretch.
        public var kind: Kind
        /// Where it starts, in seconds from the start of the signal.
        public var position: Double
        /// How long it lasts, in seconds.
        public var duration: Double

        public var description: String {
            (kind == .silence ? "silence" : "noise")
                + String(format: " of %.1f ms at %.3f s", duration * 1000, position)
        }
    }

    /// A block that is not the one that should follow, or not as long as a block: audio lost,
    /// repeated or reordered, even without a silence to show for it.
    public struct OrderBreak: Sendable, Hashable, CustomStringConvertible {
        /// What is wrong with the block.
        public enum Kind: Sendable, Hashable {
            /// Its tone is not the one after the previous block's.
            case unexpectedLabel(expected: Int, found: Int)
            /// It lasts this many seconds (silence left out), not the block duration.
            case wrongLength(Double)
        }

        /// What is wrong with the block.
        public var kind: Kind
        /// Where the block starts, in seconds from the start of the signal.
        public var position: Double

        public var description: String {
            switch kind {
            case .unexpectedLabel(let expected, let found):
                String(format: "tone %d instead of %d at %.3f s", found, expected, position)
            case .wrongLength(let duration):
                String(format: "block of %.1f ms at %.3f s", duration * 1000, position)
            }
        }
    }

    /// Where the signal starts in the recording, in seconds; nil when the recording is silent.
    public var signalStart: Double?
    /// Seconds from the first sound to the last.
    public var playedDuration: Double
    /// The tone index of each block heard, in order.
    public var labels: [Int]
    /// Silent or unrecognised stretches longer than the minimum gap.
    public var gaps: [Gap]
    /// Blocks out of order or of the wrong length.
    public var orderBreaks: [OrderBreak]

    /// Whether what was heard played without a gap or a break (not whether all of it was heard:
    /// compare ``labels`` with ``ToneBlocks/expectedLabels`` for that).
    public var isSeamless: Bool { gaps.isEmpty && orderBreaks.isEmpty }

    public var description: String {
        let start = signalStart.map { String(format: "%.3f s", $0) } ?? "nowhere"
        return String(format: "%d blocks over %.3f s from ", labels.count, playedDuration) + start
            + (gaps.isEmpty ? "" : "; gaps: " + gaps.map(\.description).joined(separator: ", "))
            + (orderBreaks.isEmpty ? "" : "; breaks: " + orderBreaks.map(\.description).joined(separator: ", "))
    }

    /// The gaps and breaks between `start` and `end` seconds of the signal, described.
    ///
    /// PulseAudio's monitor misses the first milliseconds of a stream that starts playing (the
    /// sink rewinds to mix it in, and the monitor never sees the rewound part; `pacat` shows
    /// the same), so checks that begin where a stream begins skip its first block.
    public func problems(from start: Double, to end: Double = .infinity) -> [String] {
        gaps.filter { $0.position >= start && $0.position < end }.map(\.description)
            + orderBreaks.filter { $0.position >= start && $0.position < end }.map(\.description)
    }
}
