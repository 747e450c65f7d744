// Fuzz target `audio-ring`: the shared header of an audio stream's ring as a hostile peer
// writes it. An app and the daemon share each stream's ring (a sealed memfd, both mapping it
// read-write); each side validates what the other wrote before trusting it.
//
// The harness plays the peer. It creates the memfd with the header from the input (and,
// per the input, leaves it unsealed or gives it the wrong size), maps it itself, and has the
// ring map it with `AudioRing(mapping:)`, which must accept exactly the valid rings and
// refuse the others with the right code. Then the rest of the input is a sequence of
// operations: the ring's `write`, `read`, `skip`, `discardAll` and waiting flags, and the
// peer scribbling over the indices and the header between them. A model of the ring (the
// peer's own view of the mapping) says what each operation must return and which bytes it
// must move where, so a copy that lands anywhere else in the mapping, or beyond it, shows.
//
// Input: bytes 0..<32 the header fields (magic, version, frame bytes, capacity, low-water
// mark, little-endian as in `AudioRingLayout`); byte 32 flags (bit 0: not sealed, bit 1: the
// file size is off by byte 33, signed); then operations, an opcode byte and its operands.

import CAudioRing
import Foundation

@testable import BackgrounderProtocol

/// Reads the input from the front; past its end, zeros.
struct Reader {
    var bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    /// A little-endian integer of `size` bytes.
    mutating func integer(_ size: Int) -> UInt64 {
        var value: UInt64 = 0
        for shift in 0..<size { value |= UInt64(byte()) << (8 * UInt64(shift)) }
        return value
    }
}

/// What the ring is given to write: a write of `count` bytes starts at its serial number.
let pattern: [UInt8] = (0..<(65_535 + 256)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }

let header = AudioRingLayout.headerBytes
let maximumCapacity = AudioRing.maximumCapacity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioRing(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = Reader(bytes: UnsafeBufferPointer(start: start, count: count))
    let fields = (0..<32).map { _ in input.byte() }
    let flags = input.byte()
    let adjustment = Int(Int8(bitPattern: input.byte()))

    func field(_ offset: Int, _ size: Int) -> UInt64 {
        (0..<size).reduce(0) { $0 | UInt64(fields[offset + $1]) << (8 * UInt64($1)) }
    }
    let magic = field(AudioRingLayout.magicOffset, 8)
    let version = field(AudioRingLayout.versionOffset, 4)
    let frame = field(AudioRingLayout.frameBytesOffset, 4)
    let capacity = field(AudioRingLayout.capacityOffset, 8)
    let lowWater = field(AudioRingLayout.lowWaterOffset, 8)

    let sealed = flags & 1 == 0
    let size = max(0, header + Int(min(capacity, UInt64(maximumCapacity + 4096))) + (flags & 2 != 0 ? adjustment : 0))

    // The peer's side: the file, its header, its seals, its own mapping.
    let descriptor = audio_ring_memfd_create("fuzz-ring")
    guard descriptor >= 0 else { return 0 }
    guard ftruncate(descriptor, off_t(size)) == 0 else {
        close(descriptor)
        return 0
    }
    _ = fields.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, min(32, size), 0) }
    if sealed {
        let seals = AUDIO_RING_SEAL_SHRINK | AUDIO_RING_SEAL_GROW | AUDIO_RING_SEAL_SEAL
        precondition(audio_ring_add_seals(descriptor, seals) == 0, "cannot seal a memfd")
    }
    var peer: UnsafeMutableRawPointer?
    if size > 0 {
        let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        if mapped != UnsafeMutableRawPointer(bitPattern: -1) { peer = mapped }
    }
    defer { if let peer { munmap(peer, size) } }

    // What AudioRing(mapping:) must say, in the order it checks.
    let validHeader =
        magic == AudioRingLayout.magic && version == UInt64(AudioRingLayout.version)
        && (1...UInt64(AudioRing.maximumFrameBytes)).contains(frame)
        && (1...UInt64(maximumCapacity)).contains(capacity) && capacity % max(frame, 1) == 0 && lowWater <= capacity
    let expected: AudioRingError.Code? =
        if !sealed {
            .notSealed
        } else if size < header || size > header + maximumCapacity {
            .badSize
        } else if !validHeader {
            .badHeader
        } else if size != header + Int(capacity) {
            .badSize
        } else {
            nil
        }

    let ring: AudioRing
    do {
        ring = try AudioRing(mapping: descriptor)  // owns the descriptor from here on
    } catch {
        // A system call failing (out of memory, out of descriptors) says nothing of the header.
        if error.code == .system { return 0 }
        precondition(
            error.code == expected, "refused with \(error.code) (\(error)), expected \(String(describing: expected))")
        return 0
    }
    precondition(expected == nil, "a ring that should be refused with \(String(describing: expected)) was mapped")
    precondition(ring.capacity == Int(capacity) && ring.frameBytes == Int(frame) && ring.lowWater == Int(lowWater))
    guard let peer else { preconditionFailure("the ring mapped a file the peer could not") }

    let model = Model(peer: peer, capacity: Int(capacity), frame: Int(frame))
    var serial: UInt8 = 0
    while !input.isAtEnd {
        serial &+= 1
        model.apply(operation: input.byte(), input: &input, ring: ring, serial: serial)
        model.checkViews(of: ring)
    }
    return 0
}

/// The ring as the peer sees it through its own mapping, and what each operation must do.
struct Model {
    let peer: UnsafeMutableRawPointer
    let capacity: Int
    let frame: Int

    var data: UnsafeMutableRawPointer { peer + header }
    var write: UInt64 {
        get { peer.load(fromByteOffset: AudioRingLayout.writeIndexOffset, as: UInt64.self) }
        nonmutating set {
            peer.storeBytes(of: newValue, toByteOffset: AudioRingLayout.writeIndexOffset, as: UInt64.self)
        }
    }
    var read: UInt64 {
        get { peer.load(fromByteOffset: AudioRingLayout.readIndexOffset, as: UInt64.self) }
        nonmutating set {
            peer.storeBytes(of: newValue, toByteOffset: AudioRingLayout.readIndexOffset, as: UInt64.self)
        }
    }

    /// The bytes between the indices, or nil when the indices are impossible.
    var filled: Int? {
        let filled = write &- read
        guard filled <= UInt64(capacity), write % UInt64(frame) == 0, read % UInt64(frame) == 0 else { return nil }
        return Int(filled)
    }

    func wholeFrames(_ bytes: Int) -> Int { bytes - bytes % frame }

    /// Whether `bytes` are what the data holds from `start` (an index) on, wrapping at the end.
    func data(from start: UInt64, holds bytes: UnsafeRawBufferPointer) -> Bool {
        let offset = Int(start % UInt64(capacity))
        let first = min(bytes.count, capacity - offset)
        return memcmp(data + offset, bytes.baseAddress!, first) == 0
            && memcmp(data, bytes.baseAddress! + first, bytes.count - first) == 0
    }

    func apply(operation: UInt8, input: inout Reader, ring: AudioRing, serial: UInt8) {
        let (write, read, filled) = (self.write, self.read, self.filled)
        switch operation % 9 {
        case 0:  // the ring produces
            let count = Int(input.integer(2))
            let expected = filled.map { wholeFrames(min(count, capacity - $0)) } ?? 0
            // Bytes that differ from one write to the next, so a copy to the wrong place shows.
            pattern.withUnsafeBytes { all in
                let source = UnsafeRawBufferPointer(rebasing: all[Int(serial)..<(Int(serial) + count)])
                let written = ring.write(source)
                precondition(written == expected, "write(\(count)) wrote \(written), expected \(expected)")
                precondition(
                    self.write == write &+ UInt64(written) && self.read == read, "write moved the wrong index")
                precondition(
                    data(from: write, holds: UnsafeRawBufferPointer(rebasing: source.prefix(written))),
                    "write(\(count)) put the bytes elsewhere")
            }
        case 1:  // the ring consumes
            let count = Int(input.integer(2))
            let expected = filled.map { wholeFrames(min(count, $0)) } ?? 0
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
            defer { buffer.deallocate() }
            let taken = ring.read(into: buffer)
            precondition(taken == expected, "read(\(count)) read \(taken), expected \(expected)")
            precondition(
                data(from: read, holds: UnsafeRawBufferPointer(rebasing: buffer.prefix(taken))),
                "read(\(count)) returned other bytes")
            precondition(self.read == read &+ UInt64(taken) && self.write == write, "read moved the wrong index")
        case 2:  // the ring drops some
            let count = Int(Int16(truncatingIfNeeded: input.integer(2)))
            let expected = count > 0 ? filled.map { wholeFrames(min(count, $0)) } ?? 0 : 0
            let skipped = ring.skip(count)
            precondition(skipped == expected, "skip(\(count)) dropped \(skipped), expected \(expected)")
            precondition(self.read == read &+ UInt64(skipped) && self.write == write, "skip moved the wrong index")
        case 3:  // the ring drops everything
            let expected = filled ?? 0
            let dropped = ring.discardAll()
            precondition(dropped == expected, "discardAll() dropped \(dropped), expected \(expected)")
            precondition(self.read == (expected > 0 ? write : read) && self.write == write, "discardAll's index")
        case 4:  // the peer writes any write index
            self.write = input.integer(8)
        case 5:  // the peer writes any read index
            self.read = input.integer(8)
        case 6:  // the peer moves both by the same amount (near 2^64 they wrap)
            let delta = input.integer(8)
            self.write = write &+ delta
            self.read = read &+ delta
        case 7:  // the peer rewrites the header; the ring read it once and keeps its values
            let value = input.integer(8)
            peer.storeBytes(of: value, toByteOffset: AudioRingLayout.capacityOffset, as: UInt64.self)
            peer.storeBytes(
                of: UInt32(truncatingIfNeeded: value), toByteOffset: AudioRingLayout.frameBytesOffset, as: UInt32.self)
            peer.storeBytes(of: value >> 3, toByteOffset: AudioRingLayout.lowWaterOffset, as: UInt64.self)
        default:  // the waiting flags, set by one side and read by the other
            let choice = input.byte()
            let flag = choice & 1 == 0 ? AudioRingLayout.producerWaitingOffset : AudioRingLayout.consumerWaitingOffset
            if choice & 2 == 0 {
                let waiting = choice & 4 != 0
                if flag == AudioRingLayout.producerWaitingOffset {
                    ring.setProducerWaiting(waiting)
                } else {
                    ring.setConsumerWaiting(waiting)
                }
                precondition(peer.load(fromByteOffset: flag, as: UInt32.self) == (waiting ? 1 : 0))
            } else {
                let value = UInt32(truncatingIfNeeded: input.integer(4))
                peer.storeBytes(of: value, toByteOffset: flag, as: UInt32.self)
                let seen = flag == AudioRingLayout.producerWaitingOffset ? ring.producerWaiting : ring.consumerWaiting
                precondition(seen == (value != 0))
            }
        }
    }

    /// What the ring reports must match the indices as they are now.
    func checkViews(of ring: AudioRing) {
        let filled = self.filled
        precondition(ring.isConsistent == (filled != nil), "isConsistent disagrees")
        precondition(
            ring.readableBytes == (filled ?? 0),
            "readableBytes \(ring.readableBytes), filled \(String(describing: filled))")
        precondition(ring.writableBytes == filled.map { capacity - $0 } ?? 0, "writableBytes \(ring.writableBytes)")
        precondition(ring.totalWritten == write && ring.totalRead == read, "the totals are not the indices")
    }
}
