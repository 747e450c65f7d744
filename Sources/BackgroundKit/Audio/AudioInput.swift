public import BackgrounderCore
import BackgrounderProtocol

/// A recording stream from the default source: read interleaved PCM, and the read waits
/// until some has arrived. Needs the record or playAndRecord category,
/// `NSMicrophoneUsageDescription` and a person's grant (`bgctl authorize ID microphone`).
public final class AudioInput: Sendable {
    private let channel: AudioStreamChannel

    /// The stream's format.
    public var format: AudioFormat { channel.format }

    /// Opens a recording stream (stopped until ``start()``).
    /// - Throws: ``AudioError``, for example when the microphone is not granted.
    public init(format: AudioFormat, bufferDuration: Double = AudioBufferPlan.defaultSeconds) throws {
        channel = try AudioStreamChannel.open(
            AudioStreamRequest(direction: .record, format: format, bufferSeconds: bufferDuration))
    }

    /// Starts recording.
    public func start() throws { try channel.control(.start) }
    /// Stops recording; what was recorded stays readable.
    public func stop() throws { try channel.control(.pause) }
    /// Closes the stream.
    public func close() { try? channel.control(.close) }

    /// Reads whole frames into `buffer`, waiting until at least one frame is there.
    /// - Returns: Bytes read.
    /// - Throws: ``AudioError`` when the daemon closed the stream; `CancellationError`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) async throws -> Int {
        while true {
            try Task.checkCancellation()
            let count = channel.ring.read(into: buffer)
            // The daemon never waits for room (a full ring drops and counts an overrun), so
            // reading needs no wake-up for it.
            if count > 0 { return count }
            channel.ring.setConsumerWaiting(true)
            if channel.ring.readableBytes >= format.bytesPerFrame {
                channel.ring.setConsumerWaiting(false)
                continue
            }
            try await channel.waitForPeer()
        }
    }
}
