public import BackgrounderCore
import BackgrounderProtocol

/// A playback stream, as the output side of `AVAudioEngine` reduced to what a background
/// player needs: write interleaved PCM, and the write waits while the buffer is full.
///
/// PCM goes through a ring in memory shared with the daemon, never through the control
/// socket; the daemon keeps the sound server fed from it, so playback goes on while this
/// process is busy or briefly descheduled, for as long as the buffer lasts.
public final class AudioOutput: Sendable {
    private let channel: AudioStreamChannel

    /// The daemon's number for the stream (as route changes name it).
    public var stream: Int { channel.stream }

    /// The stream's format.
    public var format: AudioFormat { channel.format }

    /// Opens a playback stream (paused until ``start()``).
    /// - Parameters:
    ///   - format: s16le or float32le, 1 or 2 channels, 8 to 192 kHz.
    ///   - bufferDuration: Seconds of audio the shared buffer holds (0.05 to 10).
    /// - Throws: ``AudioError`` naming the field the daemon refused, or why the stream failed.
    public init(format: AudioFormat, bufferDuration: Double = AudioBufferPlan.defaultSeconds) throws {
        channel = try AudioStreamChannel.open(
            AudioStreamRequest(direction: .playback, format: format, bufferSeconds: bufferDuration))
    }

    /// Seconds of audio waiting in the shared buffer.
    public var bufferedDuration: Double { format.seconds(forBytes: channel.ring.readableBytes) }

    /// Writes interleaved frames, waiting while the buffer is full (back-pressure).
    /// - Parameter bytes: Whole frames in the stream's format; they must stay valid until
    ///   this returns.
    /// - Throws: ``AudioError`` when the daemon closed the stream; `CancellationError`.
    public func write(_ bytes: UnsafeRawBufferPointer) async throws {
        try await write(count: bytes.count) { offset in
            channel.ring.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
    }

    /// Writes interleaved samples (`Int16` for s16le, `Float` for float32le), waiting while
    /// the buffer is full.
    /// - Throws: ``AudioError`` when the daemon closed the stream; `CancellationError`.
    public func write<Sample: BitwiseCopyable>(_ samples: [Sample]) async throws {
        try await write(count: samples.count * MemoryLayout<Sample>.stride) { offset in
            samples.withUnsafeBytes { channel.ring.write(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        }
    }

    /// Moves `count` bytes into the ring with `copy(offset) -> bytes written`, sleeping
    /// while it is full.
    private func write(count: Int, copy: (Int) -> Int) async throws {
        var offset = 0
        while offset < count {
            try Task.checkCancellation()
            let written = copy(offset)
            offset += written
            if written > 0 {
                // The daemon ran dry and asked to hear when data comes: tell it once.
                if channel.ring.consumerWaiting {
                    channel.ring.setConsumerWaiting(false)
                    channel.notifyPeer()
                }
                continue
            }
            guard count - offset >= format.bytesPerFrame else { break }
            // Full: ask for a wake-up, look once more (the daemon may have read meanwhile), sleep.
            channel.ring.setProducerWaiting(true)
            if channel.ring.writableBytes >= format.bytesPerFrame {
                channel.ring.setProducerWaiting(false)
                continue
            }
            // Say so: a player with nothing else to do is frozen until its ring runs low,
            // and the sooner the daemon knows, the longer it costs nothing.
            channel.notifyPeer()
            try await channel.waitForPeer()
        }
    }

    /// Starts playing (uncorks); this is what counts as playing for the `audio` background mode.
    public func start() throws { try channel.control(.start) }
    /// Pauses, keeping what is buffered.
    public func pause() throws { try channel.control(.pause) }
    /// Drops what is buffered (before a seek); call it when no write is in progress.
    public func flush() throws { try channel.control(.flush) }
    /// Returns once everything written has played.
    public func drain() async throws { try await channel.controlInBackground(.drain) }
    /// Closes the stream.
    public func close() { try? channel.control(.close) }
}
