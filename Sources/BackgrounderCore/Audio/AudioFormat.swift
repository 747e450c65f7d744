/// How one sample is stored: the two PCM encodings the daemon's rings carry.
public enum SampleFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Signed 16-bit integers, little-endian.
    case s16le
    /// 32-bit IEEE floats in -1...1, little-endian.
    case float32le

    /// Bytes per sample.
    public var bytesPerSample: Int {
        switch self {
        case .s16le: 2
        case .float32le: 4
        }
    }
}

/// The shape of an interleaved PCM stream, as `AVAudioFormat` for the formats Backgrounder
/// carries: s16le or float32le, 1 or 2 channels, 8 to 192 kHz.
public struct AudioFormat: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The sample encoding.
    public var sampleFormat: SampleFormat
    /// Frames per second.
    public var sampleRate: Int
    /// Interleaved channels.
    public var channels: Int

    /// The accepted sample rates.
    public static let sampleRates = 8000...192_000
    /// The accepted channel counts.
    public static let channelCounts = 1...2

    /// Creates a format; call ``validate()`` before trusting one that came from outside.
    public init(sampleFormat: SampleFormat, sampleRate: Int, channels: Int) {
        self.sampleFormat = sampleFormat
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// CD audio: s16le, 44.1 kHz, stereo.
    public static let cd = AudioFormat(sampleFormat: .s16le, sampleRate: 44_100, channels: 2)

    /// Bytes per frame (one sample of every channel).
    public var bytesPerFrame: Int { sampleFormat.bytesPerSample * channels }
    /// Bytes per second.
    public var bytesPerSecond: Int { bytesPerFrame * sampleRate }

    /// Bytes for `seconds` of audio, rounded down to whole frames.
    public func bytes(forSeconds seconds: Double) -> Int {
        Int(seconds * Double(sampleRate)) * bytesPerFrame
    }

    /// Seconds that `bytes` of audio last.
    public func seconds(forBytes bytes: Int) -> Double {
        Double(bytes / bytesPerFrame) / Double(sampleRate)
    }

    /// Checks the rate and channel count against what the daemon carries.
    /// - Throws: ``AudioFormatError`` naming the field and the accepted range.
    public func validate() throws(AudioFormatError) {
        guard Self.sampleRates.contains(sampleRate) else {
            throw AudioFormatError(
                field: "sampleRate",
                reason: "\(sampleRate) Hz is outside \(Self.sampleRates.lowerBound)...\(Self.sampleRates.upperBound)")
        }
        guard Self.channelCounts.contains(channels) else {
            throw AudioFormatError(field: "channels", reason: "\(channels) channels; 1 or 2 are carried")
        }
    }

    public var description: String { "\(sampleFormat.rawValue) \(sampleRate) Hz \(channels) ch" }
}

/// Why an ``AudioFormat`` was refused.
public struct AudioFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field at fault (`sampleRate`, `channels`).
    public var field: String
    /// Why.
    public var reason: String

    public init(field: String, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}
