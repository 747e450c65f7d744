import CAudioRing
import Foundation
import Synchronization
import Testing

@testable import BackgrounderProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A ring's shared memory mapped a second time, raw, as a hostile peer holds it.
private final class RawMapping {
    let base: UnsafeMutableRawPointer
    let bytes: Int

    init(_ descriptor: Int32, bytes: Int) throws {
        let pointer = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        base = try #require(pointer.flatMap { $0 == UnsafeMutableRawPointer(bitPattern: -1) ? nil : $0 })
        self.bytes = bytes
    }

    convenience init(_ ring: AudioRing) throws {
        try self.init(ring.descriptor, bytes: AudioRingLayout.headerBytes + ring.capacity)
    }

    deinit { munmap(base, bytes) }

    func store<Value>(_ value: Value, at offset: Int) {
        base.storeBytes(of: value, toByteOffset: offset, as: Value.self)
    }

    func setIndices(write: UInt64, read: UInt64) {
        store(write, at: AudioRingLayout.writeIndexOffset)
        store(read, at: AudioRingLayout.readIndexOffset)
    }
}

/// One way to spoil a ring's header before the other side maps it.
struct HeaderCorruption: Sendable, CustomTestStringConvertible {
    let name: String
    let offset: Int
    let value: UInt64
    let width: Int
    let code: AudioRingError.Code
    let reason: String

    var testDescription: String { name }

    static let all: [HeaderCorruption] = [
        .init(
            name: "bad magic", offset: AudioRingLayout.magicOffset, value: 0x1234, width: 8, code: .badHeader,
            reason: "ring header: bad magic"),
        .init(
            name: "version 2", offset: AudioRingLayout.versionOffset, value: 2, width: 4, code: .badHeader,
            reason: "ring header: version 2, expected 1"),
        .init(
            name: "zero frame", offset: AudioRingLayout.frameBytesOffset, value: 0, width: 4, code: .badHeader,
            reason: "ring header: frame of 0 bytes"),
        .init(
            name: "frame not dividing capacity", offset: AudioRingLayout.frameBytesOffset, value: 3, width: 4,
            code: .badHeader, reason: "ring header: capacity 4096 is not a positive multiple of the 3-byte frame"),
        .init(
            name: "zero capacity", offset: AudioRingLayout.capacityOffset, value: 0, width: 8, code: .badHeader,
            reason: "ring header: capacity 0"),
        .init(
            name: "huge capacity", offset: AudioRingLayout.capacityOffset, value: .max, width: 8, code: .badHeader,
            reason: "ring header: capacity 18446744073709551615"),
        .init(
            name: "capacity larger than the file", offset: AudioRingLayout.capacityOffset, value: 8192, width: 8,
            code: .badSize, reason: "ring file is 4352 bytes, header says 8448"),
        .init(
            name: "low water beyond capacity", offset: AudioRingLayout.lowWaterOffset, value: 4100, width: 8,
            code: .badHeader, reason: "ring header: low-water mark 4100 is beyond the capacity 4096"),
    ]
}

/// What the producer thread of the streaming test reports back.
private final class ProducerReport: Sendable {
    let lostWakeups = Atomic<Int>(0)
    let done = DispatchSemaphore(value: 0)
}

/// Tells a helper thread to stop, and waits for it to.
private final class StopSignal: Sendable {
    let stop = Atomic<Bool>(false)
    let done = DispatchSemaphore(value: 0)
    let iterations = Atomic<Int>(0)
}

/// Wakes the other side: one byte on the notification socket, as the daemon will.
private func notify(_ socket: Int32) {
    var byte: UInt8 = 1
    _ = Glibc.write(socket, &byte, 1)
}

/// Sleeps until a notification arrives; false after ten seconds without one (a lost wakeup).
private func waitForNotification(_ socket: Int32) -> Bool {
    var request = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    guard poll(&request, 1, 10_000) == 1 else { return false }
    var bytes = [UInt8](repeating: 0, count: 64)
    _ = Glibc.read(socket, &bytes, bytes.count)
    return true
}

@Suite("Audio ring", .timeLimit(.minutes(5)))
struct AudioRingTests {
    // MARK: Streaming

    @Test("64 MiB of counted frames cross a 4 KiB ring between two mappings and threads, in order")
    func streaming() throws {
        let total = 64 << 20
        // Each 4-byte frame holds its own number, so a lost, repeated or reordered frame (even
        // a whole ring's worth) shows.
        var frames = [UInt32](repeating: 0, count: total / 4)
        for index in frames.indices { frames[index] = UInt32(index).littleEndian }
        let expected = frames.withUnsafeBytes { Array($0) }

        let producer = try AudioRing.create(capacity: 4096, frameBytes: 4, lowWater: 1024, name: "test-streaming")
        let consumer = try AudioRing(mapping: dup(producer.descriptor))
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { pair.forEach { close($0) } }
        let (producerSocket, consumerSocket) = (pair[0], pair[1])

        let report = ProducerReport()
        Thread {
            var produced = 0
            var step = 0
            expected.withUnsafeBytes { source in
                while produced < total {
                    step += 1
                    // Odd sizes of at least a frame, so a write moves something unless the
                    // ring is full.
                    let size = min(5 + (step &* 37) % 1499, total - produced)
                    let chunk = UnsafeRawBufferPointer(rebasing: source[produced..<produced + size])
                    let written = producer.write(chunk)
                    if written > 0 {
                        produced += written
                        if producer.consumerWaiting {
                            producer.setConsumerWaiting(false)
                            notify(producerSocket)
                        }
                        continue
                    }
                    // Full: sleep until the consumer has drained to the low-water mark.
                    producer.setProducerWaiting(true)
                    if producer.readableBytes > producer.lowWater, !waitForNotification(producerSocket) {
                        report.lostWakeups.add(1, ordering: .relaxed)
                    }
                }
            }
            report.done.signal()
        }.start()

        var consumed = 0
        var step = 0
        var firstMismatch: Int?
        var oddReads = 0
        var consumerLostWakeups = 0
        var buffer = [UInt8](repeating: 0, count: 2000)
        while consumed < total {
            step += 1
            let size = 1 + (step &* 53) % 1999
            let read = buffer.withUnsafeMutableBytes {
                consumer.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<size]))
            }
            if read > 0 {
                if read % 4 != 0 || read > size || consumed + read > total {
                    oddReads += 1
                    break
                }
                let same = buffer.withUnsafeBytes { got in
                    expected.withUnsafeBytes { want in memcmp(got.baseAddress!, want.baseAddress! + consumed, read) == 0
                    }
                }
                if !same, firstMismatch == nil { firstMismatch = consumed }
                consumed += read
                if consumer.producerWaiting, consumer.readableBytes <= consumer.lowWater {
                    consumer.setProducerWaiting(false)
                    notify(consumerSocket)
                }
                continue
            }
            if size < 4 { continue }
            consumer.setConsumerWaiting(true)
            if consumer.readableBytes == 0, !waitForNotification(consumerSocket) {
                consumerLostWakeups += 1
            }
        }
        report.done.wait()
        #expect(oddReads == 0, "a read returned a part frame, more than asked or more than was written")
        #expect(firstMismatch == nil, "first wrong byte at \(firstMismatch ?? -1)")
        #expect(consumed == total)
        #expect(consumerLostWakeups == 0, "the consumer slept through data")
        #expect(report.lostWakeups.load(ordering: .relaxed) == 0, "the producer slept through space")
        #expect(consumer.totalRead == UInt64(total) && producer.totalWritten == UInt64(total))
        #expect(consumer.isConsistent && producer.isConsistent)
    }

    // MARK: Frames and wrap-around

    @Test("only whole frames move, copies wrap around the end, and free plus buffered is the capacity")
    func framesAndWrapping() throws {
        let ring = try AudioRing.create(capacity: 16, frameBytes: 4, lowWater: 4, name: "test-wrap")
        #expect(ring.capacity == 16 && ring.frameBytes == 4 && ring.lowWater == 4)
        #expect(ring.writableBytes == 16 && ring.readableBytes == 0)

        #expect(write(ring, [1, 2, 3, 4, 5, 6, 7]) == 4, "7 bytes with 4-byte frames write one frame")
        #expect(ring.readableBytes == 4 && ring.writableBytes == 12)
        #expect(write(ring, Array(10..<18)) == 8)
        #expect(read(ring, 3).isEmpty, "a buffer smaller than a frame takes nothing")
        #expect(read(ring, 11) == [1, 2, 3, 4, 10, 11, 12, 13])
        #expect(ring.readableBytes + ring.writableBytes == 16)

        // Write index at 12: eight bytes go to 12..<16 and 0..<4.
        #expect(write(ring, Array(20..<28)) == 8)
        #expect(ring.readableBytes == 12 && ring.writableBytes == 4)
        #expect(write(ring, Array(30..<40)) == 4, "only the free frame fits")
        #expect(write(ring, [50, 51, 52, 53]) == 0, "full")
        // Read index at 8: sixteen bytes come from 8..<16 and 0..<8.
        #expect(read(ring, 100) == [14, 15, 16, 17, 20, 21, 22, 23, 24, 25, 26, 27, 30, 31, 32, 33])
        #expect(ring.readableBytes == 0 && ring.writableBytes == 16)
        #expect(ring.totalWritten == 24 && ring.totalRead == 24)
        #expect(ring.isConsistent)
    }

    @Test("skip drops whole frames and discardAll drops everything buffered")
    func skipAndDiscard() throws {
        let ring = try AudioRing.create(capacity: 16, frameBytes: 4, lowWater: 0, name: "test-skip")
        #expect(ring.discardAll() == 0, "nothing to drop")
        #expect(write(ring, Array(0..<12)) == 12)
        #expect(ring.skip(5) == 4, "five bytes round down to a frame")
        #expect(ring.skip(-3) == 0)
        #expect(read(ring, 4) == [4, 5, 6, 7])
        #expect(ring.skip(100) == 4)
        #expect(ring.readableBytes == 0)
        #expect(write(ring, Array(0..<16)) == 16)
        #expect(ring.discardAll() == 16)
        #expect(ring.readableBytes == 0 && ring.writableBytes == 16)
        #expect(ring.totalRead == ring.totalWritten)
    }

    @Test("impossible sizes are refused when creating a ring")
    func invalidParameters() {
        for (capacity, frameBytes, lowWater) in [(10, 4, 0), (0, 4, 0), (16, 0, 0), (16, 4, 17), (16, 4, -1)] {
            #expect {
                _ = try AudioRing.create(capacity: capacity, frameBytes: frameBytes, lowWater: lowWater, name: "bad")
            } throws: { error in
                (error as? AudioRingError)?.code == .invalidParameters
            }
        }
    }

    @Test("each side sees the other's waiting flag")
    func waitingFlags() throws {
        let producer = try AudioRing.create(capacity: 64, frameBytes: 4, lowWater: 16, name: "test-flags")
        let consumer = try AudioRing(mapping: dup(producer.descriptor))
        #expect(!consumer.producerWaiting && !producer.consumerWaiting)
        producer.setProducerWaiting(true)
        consumer.setConsumerWaiting(true)
        #expect(consumer.producerWaiting && producer.consumerWaiting)
        consumer.setProducerWaiting(false)
        #expect(!producer.producerWaiting && producer.consumerWaiting)
        #expect(consumer.lowWater == 16)
    }

    // MARK: A hostile peer

    @Test("mapping refuses a spoiled header and says what is wrong", arguments: HeaderCorruption.all)
    func spoiledHeader(_ corruption: HeaderCorruption) throws {
        let ring = try AudioRing.create(capacity: 4096, frameBytes: 4, lowWater: 0, name: "test-hostile")
        let raw = try RawMapping(ring)
        if corruption.width == 4 {
            raw.store(UInt32(corruption.value), at: corruption.offset)
        } else {
            raw.store(corruption.value, at: corruption.offset)
        }
        let error = #expect(throws: AudioRingError.self) { _ = try AudioRing(mapping: dup(ring.descriptor)) }
        #expect(error?.code == corruption.code)
        #expect(error?.reason.hasPrefix(corruption.reason) == true, "\(error?.reason ?? "no error")")
    }

    @Test("impossible indices make the ring inconsistent, and then nothing moves")
    func corruptIndices() throws {
        let producer = try AudioRing.create(capacity: 64, frameBytes: 4, lowWater: 0, name: "test-indices")
        let consumer = try AudioRing(mapping: dup(producer.descriptor))
        let raw = try RawMapping(producer)
        let cases: [(write: UInt64, read: UInt64, name: String)] = [
            (200, 0, "more written than the ring holds"),
            (.max - 3, 0, "a huge write index"),
            (0, 8, "read ahead of write"),
            (4, .max, "a huge read index"),
            (10, 4, "a write index that is not a whole frame"),
            (12, 2, "a read index that is not a whole frame"),
        ]
        for corruption in cases {
            raw.setIndices(write: corruption.write, read: corruption.read)
            for ring in [producer, consumer] {
                #expect(!ring.isConsistent, "\(corruption.name)")
                #expect(ring.readableBytes == 0 && ring.writableBytes == 0, "\(corruption.name)")
                #expect(write(ring, Array(0..<16)) == 0, "\(corruption.name)")
                var buffer = [UInt8](repeating: 0xAA, count: 64)
                #expect(buffer.withUnsafeMutableBytes { ring.read(into: $0) } == 0, "\(corruption.name)")
                #expect(buffer.allSatisfy { $0 == 0xAA }, "\(corruption.name)")
                #expect(ring.skip(64) == 0 && ring.discardAll() == 0, "\(corruption.name)")
            }
        }

        // Consistent again, even close to where the indices wrap around 2^64: the arithmetic
        // wraps instead of trapping.
        raw.setIndices(write: .max - 3, read: .max - 11)
        #expect(consumer.isConsistent && consumer.readableBytes == 8)
        #expect(write(producer, Array(0..<8)) == 8)
        #expect(producer.totalWritten == 4)
        #expect(consumer.readableBytes == 16)
        #expect(consumer.skip(16) == 16)

        // Header fields changed after mapping are not read again.
        raw.store(UInt64.max, at: AudioRingLayout.capacityOffset)
        raw.store(UInt32(1), at: AudioRingLayout.frameBytesOffset)
        #expect(consumer.capacity == 64 && consumer.frameBytes == 4)
        #expect(write(producer, Array(0..<200)) == 64)
        #expect(read(consumer, 200) == Array(0..<64))
    }

    @Test("a peer scribbling indices while both sides run never pushes a copy out of bounds")
    func scribblingPeer() throws {
        let producer = try AudioRing.create(capacity: 256, frameBytes: 4, lowWater: 0, name: "test-scribble")
        let consumer = try AudioRing(mapping: dup(producer.descriptor))
        let raw = try RawMapping(producer)
        let scribbler = StopSignal()
        nonisolated(unsafe) let header = raw.base
        Thread {
            var generator = SystemRandomNumberGenerator()
            while !scribbler.stop.load(ordering: .relaxed) {
                let value: UInt64 =
                    switch UInt8.random(in: 0..<4, using: &generator) {
                    case 0: .random(in: 0...UInt64.max, using: &generator)
                    case 1: .random(in: 0...600, using: &generator)
                    case 2: UInt64.max &- .random(in: 0...600, using: &generator)
                    default: 0
                    }
                let offset = Bool.random() ? AudioRingLayout.writeIndexOffset : AudioRingLayout.readIndexOffset
                header.storeBytes(of: value, toByteOffset: offset, as: UInt64.self)
                scribbler.iterations.add(1, ordering: .relaxed)
            }
            scribbler.done.signal()
        }.start()
        defer {
            scribbler.stop.store(true, ordering: .relaxed)
            scribbler.done.wait()
            withExtendedLifetime(raw) {}
        }

        // Reads go into the first 300 bytes; the rest is a guard no read may reach.
        let guardByte: UInt8 = 0xEE
        var buffer = [UInt8](repeating: guardByte, count: 512)
        let source = [UInt8](repeating: 7, count: 300)
        var outOfBounds = 0
        var inconsistent = 0
        var step = 0
        // At least 100,000 rounds, and on until the scribbler has had its say, however the
        // two threads get scheduled.
        while step < 100_000 || (scribbler.iterations.load(ordering: .relaxed) < 100_000 && step < 10_000_000) {
            step += 1
            let size = step % 300
            if !consumer.isConsistent { inconsistent += 1 }
            let written = source.withUnsafeBytes { producer.write(UnsafeRawBufferPointer(rebasing: $0[..<size])) }
            if written > size || written % 4 != 0 { outOfBounds += 1 }
            let read = buffer.withUnsafeMutableBytes {
                consumer.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[..<size]))
            }
            if read > size || read % 4 != 0 { outOfBounds += 1 }
            if !(0...256).contains(consumer.readableBytes) || !(0...256).contains(producer.writableBytes) {
                outOfBounds += 1
            }
            let skipped = consumer.skip(size)
            if skipped > size || skipped % 4 != 0 { outOfBounds += 1 }
        }
        #expect(buffer[300...].allSatisfy { $0 == guardByte })
        #expect(inconsistent > 0, "the scribbler did spoil the indices")
        #expect(outOfBounds == 0)
        // Data copies never reached into the header.
        #expect(raw.base.load(fromByteOffset: AudioRingLayout.magicOffset, as: UInt64.self) == AudioRingLayout.magic)
        #expect(raw.base.load(fromByteOffset: AudioRingLayout.capacityOffset, as: UInt64.self) == 256)
    }

    // MARK: Sealing

    @Test("a created ring cannot be resized or resealed")
    func createdRingIsSealed() throws {
        let ring = try AudioRing.create(capacity: 4096, frameBytes: 4, lowWater: 0, name: "test-sealed")
        #expect(ftruncate(ring.descriptor, 0) == -1 && errno == EPERM, "shrinking")
        #expect(ftruncate(ring.descriptor, 1 << 20) == -1 && errno == EPERM, "growing")
        let seals = audio_ring_get_seals(ring.descriptor)
        let wanted = AUDIO_RING_SEAL_SHRINK | AUDIO_RING_SEAL_GROW | AUDIO_RING_SEAL_SEAL
        #expect(seals & wanted == wanted)
        #expect(audio_ring_add_seals(ring.descriptor, 0x0008) == -1 && errno == EPERM, "F_SEAL_WRITE refused")
    }

    @Test("mapping refuses a memfd that could shrink, closes it, and accepts it once sealed")
    func unsealedRing() throws {
        let original = try AudioRing.create(capacity: 4096, frameBytes: 4, lowWater: 0, name: "test-original")
        let size = AudioRingLayout.headerBytes + 4096
        let unsealed = audio_ring_memfd_create("test-unsealed")
        try #require(unsealed >= 0)
        defer { close(unsealed) }
        try #require(ftruncate(unsealed, off_t(size)) == 0)
        // A header that is right in every other way.
        var header = [UInt8](repeating: 0, count: AudioRingLayout.headerBytes)
        #expect(pread(original.descriptor, &header, header.count, 0) == header.count)
        #expect(pwrite(unsealed, header, header.count, 0) == header.count)

        // High descriptor numbers, which no other test running alongside will be given, so
        // "closed" cannot be confused with "reused".
        let copy = fcntl(unsealed, F_DUPFD_CLOEXEC, 700)
        let error = #expect(throws: AudioRingError.self) { _ = try AudioRing(mapping: copy) }
        #expect(error?.code == .notSealed)
        #expect(error?.description == "ring is not sealed against shrinking")
        #expect(fcntl(copy, F_GETFD) == -1 && errno == EBADF, "the refused descriptor was closed")

        try #require(audio_ring_add_seals(unsealed, AUDIO_RING_SEAL_GROW) == 0)
        #expect(throws: AudioRingError.self, "sealed against growing is not enough") {
            _ = try AudioRing(mapping: dup(unsealed))
        }
        try #require(audio_ring_add_seals(unsealed, AUDIO_RING_SEAL_SHRINK) == 0)
        let ring = try AudioRing(mapping: dup(unsealed))
        #expect(ring.capacity == 4096 && ring.frameBytes == 4)
    }

    @Test("mapping refuses a file too small for a header and a descriptor that is not a memfd")
    func notARing() throws {
        let small = audio_ring_memfd_create("test-small")
        try #require(small >= 0)
        try #require(ftruncate(small, 100) == 0)
        try #require(audio_ring_add_seals(small, AUDIO_RING_SEAL_SHRINK) == 0)
        let tooSmall = #expect(throws: AudioRingError.self) { _ = try AudioRing(mapping: small) }
        #expect(tooSmall?.code == .badSize)
        #expect(tooSmall?.reason == "ring file is 100 bytes, smaller than the 256-byte header")

        var pipe: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&pipe) == 0)
        defer { close(pipe[1]) }
        let notMemfd = #expect(throws: AudioRingError.self) { _ = try AudioRing(mapping: pipe[0]) }
        #expect(notMemfd?.code == .notSealed)
        #expect(notMemfd?.reason == "ring is not a sealable memfd")
    }

    // MARK: Helpers

    private func write(_ ring: AudioRing, _ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { ring.write($0) }
    }

    private func read(_ ring: AudioRing, _ count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { ring.read(into: $0) }
        return Array(buffer[..<read])
    }
}
