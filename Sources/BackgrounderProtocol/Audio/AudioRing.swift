import CAudioRing

#if canImport(Glibc)
    import Glibc
#endif

/// A single-producer single-consumer byte ring in shared memory, carrying one audio stream's
/// PCM between an app and the daemon.
///
/// The ring lives in a sealed memfd that one side creates with
/// ``create(capacity:frameBytes:lowWater:name:)`` and passes to the other with
/// ``DescriptorPassing``; the other side maps it with ``init(mapping:)``. For playback the app
/// produces and the daemon consumes; for recording the reverse. Indices are monotonic byte
/// counts; the producer publishes the write index and the consumer the read index, each with
/// release ordering after copying the bytes, and each side reads the other's with acquire.
///
/// The other process can scribble anything into the header at any time. Capacity, frame size
/// and low-water mark are therefore read once, when mapping, and validated; each operation
/// reads the indices once into locals and checks them (``isConsistent``) before touching the
/// data, so whatever the peer does, this side never reads or writes outside its mapping.
/// A peer can only corrupt the audio itself.
///
/// Every transfer moves whole frames of ``frameBytes`` bytes.
// @unchecked: the only mutable state is the shared memory, and every access to the header
// goes through the atomics in CAudioRing. The data bytes are ordered by the index release and
// acquire: the producer only writes bytes the consumer has released, and the reverse. That
// holds as long as at most one thread produces and one consumes, which is the ring's contract;
// even when it is broken, operations stay within bounds (they only corrupt the audio).
public final class AudioRing: @unchecked Sendable {
    /// The largest capacity accepted, 64 MiB: ten seconds of the largest format carried
    /// (stereo float32 at 192 kHz) with room to spare, and a bound on the memory a peer's
    /// ring can make this process map.
    public static let maximumCapacity = 64 << 20
    /// The largest frame accepted, far above any interleaved PCM format in use.
    public static let maximumFrameBytes = 4096

    /// The memfd, to send to the peer. The ring closes it when it goes away.
    public let descriptor: Int32
    /// Data bytes the ring holds, a multiple of ``frameBytes``.
    public let capacity: Int
    /// Bytes per frame; every transfer moves whole frames.
    public let frameBytes: Int
    /// The buffered bytes at which the waiting side is to be woken, as the creator set it.
    public let lowWater: Int

    /// The start of the mapping (the header).
    let base: UnsafeMutableRawPointer
    /// Bytes mapped: the header and the data.
    let mappedBytes: Int

    /// The start of the data, after the header.
    var data: UnsafeMutableRawPointer { base + AudioRingLayout.headerBytes }

    init(
        descriptor: Int32, base: UnsafeMutableRawPointer, mappedBytes: Int, capacity: Int, frameBytes: Int,
        lowWater: Int
    ) {
        self.descriptor = descriptor
        self.base = base
        self.mappedBytes = mappedBytes
        self.capacity = capacity
        self.frameBytes = frameBytes
        self.lowWater = lowWater
    }

    deinit {
        munmap(base, mappedBytes)
        close(descriptor)
    }

    /// False when the indices are impossible: more bytes written than the ring holds, the
    /// read index ahead of the write index, or an index that is not a whole number of frames.
    /// Only a peer writing into the header produces that; while it lasts, ``read(into:)``,
    /// ``write(_:)``, ``skip(_:)`` and ``discardAll()`` do nothing and return 0, and
    /// ``readableBytes`` and ``writableBytes`` are 0.
    public var isConsistent: Bool { filledBytes(indices()) != nil }

    /// Bytes ever written: the write index, for latency accounting.
    public var totalWritten: UInt64 {
        audio_ring_load_acquire_u64(base + AudioRingLayout.writeIndexOffset)
    }

    /// Bytes ever read (or skipped): the read index, for latency accounting.
    public var totalRead: UInt64 {
        audio_ring_load_acquire_u64(base + AudioRingLayout.readIndexOffset)
    }
}

// MARK: - Indices

extension AudioRing {
    /// The two indices as one snapshot.
    struct Indices {
        var write: UInt64
        var read: UInt64
    }

    /// Both indices as of one instant. The read index is loaded before and after the write
    /// index and the pair kept only if it did not move in between: loading them one after
    /// the other could pair an old read index with a newer write index (more than `capacity`
    /// apart) and make an honest ring look corrupt. On the consumer's thread the read index
    /// cannot move, so this is one pass; a peer that keeps moving it gets the last pair.
    func indices() -> Indices {
        var read = audio_ring_load_acquire_u64(base + AudioRingLayout.readIndexOffset)
        for _ in 0..<4 {
            let write = audio_ring_load_acquire_u64(base + AudioRingLayout.writeIndexOffset)
            let again = audio_ring_load_acquire_u64(base + AudioRingLayout.readIndexOffset)
            if again == read { return Indices(write: write, read: read) }
            read = again
        }
        return Indices(write: audio_ring_load_acquire_u64(base + AudioRingLayout.writeIndexOffset), read: read)
    }

    /// The bytes between the indices, or nil when they are impossible. Wrapping arithmetic,
    /// so no value a peer writes can trap.
    func filledBytes(_ indices: Indices) -> Int? {
        let filled = indices.write &- indices.read
        let frame = UInt64(frameBytes)
        guard filled <= UInt64(capacity), indices.write % frame == 0, indices.read % frame == 0 else { return nil }
        return Int(filled)
    }

    /// Where `index` falls in the data, always below `capacity`.
    func position(of index: UInt64) -> Int {
        Int(index % UInt64(capacity))
    }

    /// `bytes` rounded down to whole frames.
    func wholeFrames(_ bytes: Int) -> Int {
        bytes - bytes % frameBytes
    }
}
