import CAudioRing

// Each operation takes one snapshot of the indices, validates it, and from then on uses only
// the snapshot and its own immutable capacity: a peer that changes the header mid-copy can
// garble the audio but cannot move the copy out of the data area.

// MARK: - Producer

extension AudioRing {
    /// Free space in whole frames; 0 while the ring is inconsistent.
    public var writableBytes: Int {
        guard let filled = filledBytes(indices()) else { return 0 }
        return capacity - filled
    }

    /// Copies as many whole frames of `bytes` as fit, wrapping around the end of the data,
    /// then publishes them.
    /// - Parameter bytes: PCM to append.
    /// - Returns: The bytes written, a multiple of ``frameBytes``; 0 when the ring is full or
    ///   inconsistent.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let source = bytes.baseAddress else { return 0 }
        let snapshot = indices()
        guard let filled = filledBytes(snapshot) else { return 0 }
        let count = wholeFrames(min(bytes.count, capacity - filled))
        guard count > 0 else { return 0 }
        let start = position(of: snapshot.write)
        let first = min(count, capacity - start)
        (data + start).copyMemory(from: source, byteCount: first)
        if first < count {
            data.copyMemory(from: source + first, byteCount: count - first)
        }
        audio_ring_store_release_u64(base + AudioRingLayout.writeIndexOffset, snapshot.write &+ UInt64(count))
        return count
    }
}

// MARK: - Consumer

extension AudioRing {
    /// Buffered bytes in whole frames, in `0...capacity`; 0 while the ring is inconsistent.
    public var readableBytes: Int {
        filledBytes(indices()) ?? 0
    }

    /// Copies as many whole frames as are buffered and fit in `buffer`, wrapping around the
    /// end of the data, then releases their space to the producer.
    /// - Parameter buffer: Where to put the PCM.
    /// - Returns: The bytes read, a multiple of ``frameBytes``; 0 when the ring is empty or
    ///   inconsistent.
    @discardableResult
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let destination = buffer.baseAddress else { return 0 }
        let snapshot = indices()
        guard let filled = filledBytes(snapshot) else { return 0 }
        let count = wholeFrames(min(buffer.count, filled))
        guard count > 0 else { return 0 }
        let start = position(of: snapshot.read)
        let first = min(count, capacity - start)
        destination.copyMemory(from: data + start, byteCount: first)
        if first < count {
            (destination + first).copyMemory(from: data, byteCount: count - first)
        }
        audio_ring_store_release_u64(base + AudioRingLayout.readIndexOffset, snapshot.read &+ UInt64(count))
        return count
    }

    /// Drops up to `bytes` of buffered audio, in whole frames, without copying it.
    /// - Parameter bytes: How much to drop.
    /// - Returns: The bytes dropped; 0 when the ring is empty or inconsistent.
    @discardableResult
    public func skip(_ bytes: Int) -> Int {
        guard bytes > 0 else { return 0 }
        let snapshot = indices()
        guard let filled = filledBytes(snapshot) else { return 0 }
        let count = wholeFrames(min(bytes, filled))
        guard count > 0 else { return 0 }
        audio_ring_store_release_u64(base + AudioRingLayout.readIndexOffset, snapshot.read &+ UInt64(count))
        return count
    }

    /// Drops everything buffered (a flush): the read index catches up with the write index.
    /// - Returns: The bytes dropped; 0 when the ring is empty or inconsistent.
    @discardableResult
    public func discardAll() -> Int {
        let snapshot = indices()
        guard let filled = filledBytes(snapshot), filled > 0 else { return 0 }
        audio_ring_store_release_u64(base + AudioRingLayout.readIndexOffset, snapshot.write)
        return filled
    }
}
