import CAudioRing

#if canImport(Glibc)
    import Glibc
#endif

extension AudioRing {
    /// Creates a memfd-backed ring, sealed against resizing, with empty indices.
    /// - Parameters:
    ///   - capacity: Data bytes, a positive multiple of `frameBytes` up to ``maximumCapacity``.
    ///   - frameBytes: Bytes per frame, 1 to ``maximumFrameBytes``.
    ///   - lowWater: The wake-up threshold in bytes, `0...capacity`, stored in the header for
    ///     both sides.
    ///   - name: The memfd's name, shown in `/proc/PID/fd` (at most 249 bytes).
    /// - Returns: The ring, whose ``descriptor`` is to be sent to the peer.
    /// - Throws: ``AudioRingError``: `.invalidParameters`, or `.system` when `memfd_create`,
    ///   `ftruncate`, sealing or `mmap` fails.
    public static func create(
        capacity: Int, frameBytes: Int, lowWater: Int, name: String
    ) throws(AudioRingError) -> AudioRing {
        guard (1...maximumFrameBytes).contains(frameBytes) else {
            throw AudioRingError(
                .invalidParameters, "frame of \(frameBytes) bytes; 1...\(maximumFrameBytes) are possible")
        }
        guard (1...maximumCapacity).contains(capacity), capacity % frameBytes == 0 else {
            throw AudioRingError(
                .invalidParameters,
                "capacity of \(capacity) bytes is not a positive multiple of the \(frameBytes)-byte frame "
                    + "up to \(maximumCapacity)")
        }
        guard (0...capacity).contains(lowWater) else {
            throw AudioRingError(.invalidParameters, "low-water mark \(lowWater) is outside 0...\(capacity)")
        }
        let descriptor = name.withCString { audio_ring_memfd_create($0) }
        guard descriptor >= 0 else { throw .system("memfd_create", errno) }
        let size = AudioRingLayout.headerBytes + capacity
        let base: UnsafeMutableRawPointer
        do throws(AudioRingError) {
            guard retryingInterrupted({ ftruncate(descriptor, off_t(size)) }) == 0 else {
                throw .system("ftruncate", errno)
            }
            // Sealed before the peer ever sees it; F_SEAL_SEAL so nobody adds another seal
            // later (F_SEAL_FUTURE_WRITE would keep the other side from mapping it writable).
            let seals = AUDIO_RING_SEAL_SHRINK | AUDIO_RING_SEAL_GROW | AUDIO_RING_SEAL_SEAL
            guard audio_ring_add_seals(descriptor, seals) == 0 else { throw .system("F_ADD_SEALS", errno) }
            base = try map(descriptor, bytes: size)
        } catch {
            close(descriptor)
            throw error
        }
        // A fresh memfd reads as zeros, so the indices and flags already start at 0.
        base.storeBytes(of: AudioRingLayout.version, toByteOffset: AudioRingLayout.versionOffset, as: UInt32.self)
        base.storeBytes(of: UInt32(frameBytes), toByteOffset: AudioRingLayout.frameBytesOffset, as: UInt32.self)
        base.storeBytes(of: UInt64(capacity), toByteOffset: AudioRingLayout.capacityOffset, as: UInt64.self)
        base.storeBytes(of: UInt64(lowWater), toByteOffset: AudioRingLayout.lowWaterOffset, as: UInt64.self)
        audio_ring_store_release_u64(base + AudioRingLayout.magicOffset, AudioRingLayout.magic)
        return AudioRing(
            descriptor: descriptor, base: base, mappedBytes: size, capacity: capacity, frameBytes: frameBytes,
            lowWater: lowWater)
    }

    /// Maps a ring received from the other side.
    ///
    /// Checks, before trusting anything in it, that the file is sealed against shrinking (a
    /// ring that could shrink would let the peer truncate it under the mapping and raise
    /// SIGBUS here), and then the magic, version, frame size, capacity and low-water mark, and
    /// that the file is exactly header plus capacity. The values are read once; later changes
    /// to them in the shared header are ignored.
    /// - Parameter descriptor: The memfd. The ring takes ownership: it is closed when mapping
    ///   fails and when the ring goes away.
    /// - Throws: ``AudioRingError``: `.notSealed`, `.badSize`, `.badHeader`, or `.system`.
    public convenience init(mapping descriptor: Int32) throws(AudioRingError) {
        let mapped: Mapped
        do throws(AudioRingError) {
            mapped = try Self.validatedMapping(of: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        self.init(
            descriptor: descriptor, base: mapped.base, mappedBytes: mapped.bytes, capacity: mapped.capacity,
            frameBytes: mapped.frameBytes, lowWater: mapped.lowWater)
    }

    /// A validated mapping and the header values read from it.
    struct Mapped {
        var base: UnsafeMutableRawPointer
        var bytes: Int
        var capacity: Int
        var frameBytes: Int
        var lowWater: Int
    }

    /// Maps `descriptor` and validates it; unmaps again (but leaves the descriptor open) when
    /// it is not a ring.
    static func validatedMapping(of descriptor: Int32) throws(AudioRingError) -> Mapped {
        let seals = audio_ring_get_seals(descriptor)
        if seals == -1 {
            let number = errno
            // EINVAL: a file system without seals, so not a memfd; EBADF and others are ours.
            if number == EINVAL { throw AudioRingError(.notSealed, "ring is not a sealable memfd") }
            throw .system("F_GET_SEALS", number)
        }
        guard seals & AUDIO_RING_SEAL_SHRINK != 0 else {
            throw AudioRingError(.notSealed, "ring is not sealed against shrinking")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .system("fstat", errno) }
        // Checked with the seal in place, so the size can no longer drop below this.
        let size = Int(status.st_size)
        let header = AudioRingLayout.headerBytes
        guard size >= header else {
            throw AudioRingError(.badSize, "ring file is \(size) bytes, smaller than the \(header)-byte header")
        }
        guard size <= header + maximumCapacity else {
            throw AudioRingError(.badSize, "ring file is \(size) bytes, more than a ring of \(maximumCapacity) holds")
        }
        let base = try map(descriptor, bytes: size)
        do throws(AudioRingError) {
            let (capacity, frameBytes, lowWater) = try readHeader(base)
            guard size == header + capacity else {
                throw AudioRingError(.badSize, "ring file is \(size) bytes, header says \(header + capacity)")
            }
            return Mapped(base: base, bytes: size, capacity: capacity, frameBytes: frameBytes, lowWater: lowWater)
        } catch {
            munmap(base, size)
            throw error
        }
    }

    /// Reads each header field once and validates it.
    /// - Returns: Capacity, frame bytes and low-water mark.
    static func readHeader(_ base: UnsafeMutableRawPointer) throws(AudioRingError) -> (Int, Int, Int) {
        let magic = audio_ring_load_acquire_u64(base + AudioRingLayout.magicOffset)
        guard magic == AudioRingLayout.magic else {
            throw AudioRingError(.badHeader, "ring header: bad magic 0x\(String(magic, radix: 16))")
        }
        let version = audio_ring_load_acquire_u32(base + AudioRingLayout.versionOffset)
        guard version == AudioRingLayout.version else {
            throw AudioRingError(.badHeader, "ring header: version \(version), expected \(AudioRingLayout.version)")
        }
        let frameBytes = audio_ring_load_acquire_u32(base + AudioRingLayout.frameBytesOffset)
        guard (1...UInt32(maximumFrameBytes)).contains(frameBytes) else {
            throw AudioRingError(
                .badHeader, "ring header: frame of \(frameBytes) bytes, expected 1...\(maximumFrameBytes)")
        }
        let capacity = audio_ring_load_acquire_u64(base + AudioRingLayout.capacityOffset)
        guard (1...UInt64(maximumCapacity)).contains(capacity), capacity % UInt64(frameBytes) == 0 else {
            throw AudioRingError(
                .badHeader,
                "ring header: capacity \(capacity) is not a positive multiple of the \(frameBytes)-byte frame "
                    + "up to \(maximumCapacity)")
        }
        let lowWater = audio_ring_load_acquire_u64(base + AudioRingLayout.lowWaterOffset)
        guard lowWater <= capacity else {
            throw AudioRingError(
                .badHeader, "ring header: low-water mark \(lowWater) is beyond the capacity \(capacity)")
        }
        return (Int(capacity), Int(frameBytes), Int(lowWater))
    }

    /// `mmap`s the whole file shared, readable and writable.
    static func map(_ descriptor: Int32, bytes: Int) throws(AudioRingError) -> UnsafeMutableRawPointer {
        let pointer = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let pointer, pointer != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw .system("mmap", errno)
        }
        return pointer
    }
}
