/// How much audio sits where for one stream: the shared ring between app and daemon, and
/// the buffer attributes asked of PulseAudio. docs/AUDIO.md gives the reasoning.
///
/// Background playback wants deep buffers: the deeper they are, the longer an app (or the
/// daemon) may be descheduled without a gap, and the less often anyone wakes up, which is
/// what a locked phone's battery wants. The app chooses the ring's depth; the server-side
/// target follows it, capped at two seconds so that pausing and seeking stay prompt.
public struct AudioBufferPlan: Sendable, Hashable {
    /// Bytes in the shared ring.
    public var ringCapacity: Int
    /// Playback: the app is woken when no more than this many bytes are left in the ring.
    /// Record: the app is woken once this many bytes are waiting.
    public var lowWater: Int
    /// PulseAudio's `tlength` (playback): bytes the server keeps queued.
    public var targetLength: Int?
    /// PulseAudio's `minreq` (playback): the least the server asks for at a time.
    public var minimumRequest: Int?
    /// PulseAudio's `prebuf` (playback): bytes needed before playback starts or restarts after an underrun.
    public var prebuffer: Int?
    /// PulseAudio's `fragsize` (record): bytes per delivery to the daemon.
    public var fragmentSize: Int?

    /// The ring's depth when the app does not say: two seconds.
    public static let defaultSeconds = 2.0
    /// The ring depths accepted.
    public static let secondsRange = 0.05...10.0
    /// The most the server is asked to keep queued for a playback stream.
    public static let maximumTargetSeconds = 2.0
    /// The most the server holds back before delivering recorded audio.
    public static let maximumFragmentSeconds = 0.2

    /// Plans the buffers for a stream.
    /// - Parameters:
    ///   - format: The stream's format (valid).
    ///   - direction: `true` for playback, `false` for record.
    ///   - requestedSeconds: The ring depth the app asked for, clamped to ``secondsRange``.
    public init(format: AudioFormat, playback: Bool, requestedSeconds: Double?) {
        let requested = requestedSeconds.flatMap { $0.isFinite ? $0 : nil } ?? Self.defaultSeconds
        let seconds = min(max(requested, Self.secondsRange.lowerBound), Self.secondsRange.upperBound)
        // Whole frames everywhere: a ring or request that split a frame would misalign channels.
        func bytes(_ seconds: Double) -> Int { max(format.bytesPerFrame, format.bytes(forSeconds: seconds)) }
        ringCapacity = bytes(seconds)
        if playback {
            let target = bytes(min(seconds, Self.maximumTargetSeconds))
            // A quarter of the target per request: the daemon wakes four times per target
            // length instead of every 20 ms as with the server's defaults.
            let request = max(format.bytesPerFrame, target / 4 / format.bytesPerFrame * format.bytesPerFrame)
            targetLength = target
            minimumRequest = request
            // Start (and restart after an underrun) once one request's worth is there, so a
            // short sound plays without a drain and recovery does not wait for a full target.
            prebuffer = request
            fragmentSize = nil
            lowWater = ringCapacity / 2 / format.bytesPerFrame * format.bytesPerFrame
        } else {
            let fragment = bytes(min(seconds / 4, Self.maximumFragmentSeconds))
            targetLength = nil
            minimumRequest = nil
            prebuffer = nil
            fragmentSize = fragment
            lowWater = min(fragment, ringCapacity / 2 / format.bytesPerFrame * format.bytesPerFrame)
        }
    }
}
