/// Tells a playback stream that carries sound from one that carries only silence, measured in
/// the audio itself (so in the stream's time, not the clock's).
///
/// Background audio on iOS is for audio a person hears; an app that plays silence to stay
/// awake is rejected. Here the rule is enforced: once a stream's audio has been silent for the
/// policy's limit (``BackgroundPolicy/backgroundAudioSilenceLimit(for:)``), it no longer counts
/// as playing, so its app loses the `audio` assertion and is suspended like any other. The
/// first sound counts again.
///
/// Silent means every sample at most one step of 16-bit audio from zero (-90 dBFS): digital
/// silence, and the dither of an encoder's silence, which no one hears.
public struct SilenceDetector: Sendable {
    /// What one look changed.
    public enum Change: Sendable, Hashable {
        /// The silence reached the limit: the stream stops counting as playing.
        case becameSilent
        /// Sound after a silence that had reached the limit.
        case soundReturned
    }

    /// How many bytes of silence in a row reach the limit.
    public let limitBytes: Int
    private let sampleFormat: SampleFormat
    /// Silent bytes in a row so far.
    public private(set) var silentBytes = 0
    /// Whether the silence reached the limit and no sound came since.
    public private(set) var isSilent = false

    /// Creates a detector.
    /// - Parameters:
    ///   - limit: How long silence may last before it does not count as playing.
    ///   - format: The stream's format.
    public init(limit: Duration, format: AudioFormat) {
        limitBytes = max(format.bytesPerFrame, format.bytes(forSeconds: limit.seconds))
        sampleFormat = format.sampleFormat
    }

    /// Looks at the next bytes the stream plays (whole samples).
    /// - Returns: What changed, if anything.
    public mutating func observe(_ bytes: UnsafeRawBufferPointer) -> Change? {
        guard Self.isQuiet(bytes, sampleFormat) else {
            silentBytes = 0
            guard isSilent else { return nil }
            isSilent = false
            return .soundReturned
        }
        silentBytes = min(silentBytes + bytes.count, limitBytes)
        guard !isSilent, silentBytes >= limitBytes else { return nil }
        isSilent = true
        return .becameSilent
    }

    /// Whether every sample is within one 16-bit step of zero.
    public static func isQuiet(_ bytes: UnsafeRawBufferPointer, _ format: SampleFormat) -> Bool {
        switch format {
        case .s16le:
            let count = bytes.count / 2
            for index in 0..<count {
                let sample = Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))
                if sample > 1 || sample < -1 { return false }
            }
        case .float32le:
            let count = bytes.count / 4
            for index in 0..<count {
                let bits = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
                if abs(Float(bitPattern: bits)) > 1 / 32_768 { return false }
            }
        }
        return true
    }
}
