public import Foundation

/// Writes canonical RIFF WAV files (a 44-byte header, then the samples), so tests can make
/// audio files without the decoder under test.
public enum WAVFile {
    /// A WAV file of 16-bit PCM.
    /// - Parameters:
    ///   - samples: Interleaved samples, `channels` per frame.
    ///   - sampleRate: Frames per second.
    ///   - channels: Interleaved channels.
    /// - Returns: The whole file.
    public static func data(samples: [Int16], sampleRate: Int, channels: Int) -> Data {
        let body = samples.map(\.littleEndian).withUnsafeBytes { Data($0) }
        return header(
            formatTag: 1, bitsPerSample: 16, sampleRate: sampleRate, channels: channels, dataBytes: body.count)
            + body
    }

    /// A WAV file of 32-bit IEEE floats (format tag 3).
    /// - Parameters:
    ///   - samples: Interleaved samples in -1...1, `channels` per frame.
    ///   - sampleRate: Frames per second.
    ///   - channels: Interleaved channels.
    /// - Returns: The whole file.
    public static func data(samples: [Float], sampleRate: Int, channels: Int) -> Data {
        let body = samples.map(\.bitPattern.littleEndian).withUnsafeBytes { Data($0) }
        return header(
            formatTag: 3, bitsPerSample: 32, sampleRate: sampleRate, channels: channels, dataBytes: body.count)
            + body
    }

    /// Writes a 16-bit PCM WAV file.
    /// - Parameters:
    ///   - samples: Interleaved samples, `channels` per frame.
    ///   - sampleRate: Frames per second.
    ///   - channels: Interleaved channels.
    ///   - path: Where to write it.
    /// - Throws: When the file cannot be written.
    public static func write(samples: [Int16], sampleRate: Int, channels: Int, to path: String) throws {
        try data(samples: samples, sampleRate: sampleRate, channels: channels).write(to: URL(fileURLWithPath: path))
    }

    /// Writes a 32-bit float WAV file.
    /// - Parameters:
    ///   - samples: Interleaved samples in -1...1, `channels` per frame.
    ///   - sampleRate: Frames per second.
    ///   - channels: Interleaved channels.
    ///   - path: Where to write it.
    /// - Throws: When the file cannot be written.
    public static func write(samples: [Float], sampleRate: Int, channels: Int, to path: String) throws {
        try data(samples: samples, sampleRate: sampleRate, channels: channels).write(to: URL(fileURLWithPath: path))
    }

    /// The RIFF header, `fmt ` chunk and `data` chunk header: 44 bytes.
    private static func header(
        formatTag: UInt16, bitsPerSample: Int, sampleRate: Int, channels: Int, dataBytes: Int
    ) -> Data {
        let blockAlign = channels * bitsPerSample / 8
        var header = Data(capacity: 44)
        header.append(contentsOf: Array("RIFF".utf8))
        header.appendLittleEndian(UInt32(36 + dataBytes))
        header.append(contentsOf: Array("WAVE".utf8))
        header.append(contentsOf: Array("fmt ".utf8))
        header.appendLittleEndian(UInt32(16))
        header.appendLittleEndian(formatTag)
        header.appendLittleEndian(UInt16(channels))
        header.appendLittleEndian(UInt32(sampleRate))
        header.appendLittleEndian(UInt32(sampleRate * blockAlign))
        header.appendLittleEndian(UInt16(blockAlign))
        header.appendLittleEndian(UInt16(bitsPerSample))
        header.append(contentsOf: Array("data".utf8))
        header.appendLittleEndian(UInt32(dataBytes))
        return header
    }
}

extension Data {
    fileprivate mutating func appendLittleEndian(_ value: some FixedWidthInteger) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

extension WAVFile {
    /// Two tones of `seconds` each and different pitch, `1-low.wav` (330 Hz) and `2-high.wav` (880 Hz), in
    /// `directory` (created), readable by an app under a uid of its own: a capture tells which
    /// track plays.
    public static func writeTwoTones(into directory: String, amplitude: Double, seconds: Int = 30) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, frequency) in [("1-low.wav", 330.0), ("2-high.wav", 880.0)] {
            var samples: [Int16] = []
            samples.reserveCapacity(44_100 * seconds * 2)
            for index in 0..<(44_100 * seconds) {
                let value = Int16(amplitude * sin(2 * Double.pi * frequency * Double(index) / 44_100))
                samples.append(value)
                samples.append(value)
            }
            try write(samples: samples, sampleRate: 44_100, channels: 2, to: directory + "/" + name)
            chmod(directory + "/" + name, 0o644)
        }
        chmod(directory, 0o755)
    }
}
