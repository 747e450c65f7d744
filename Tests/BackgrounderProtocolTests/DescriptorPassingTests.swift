import CAudioRing
import Testing

@testable import BackgrounderProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A connected pair of Unix stream sockets, closed when the test ends.
private final class SocketPair {
    let left: Int32
    let right: Int32
    private var closed: Set<Int32> = []

    init() throws {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        left = pair[0]
        right = pair[1]
    }

    func close(_ descriptor: Int32) {
        if closed.insert(descriptor).inserted { _ = Glibc.close(descriptor) }
    }

    deinit {
        close(left)
        close(right)
    }
}

@Suite("Descriptor passing", .timeLimit(.minutes(5)))
struct DescriptorPassingTests {
    @Test("a memfd arrives as another descriptor for the same file, close-on-exec")
    func memfdRoundTrip() throws {
        let sockets = try SocketPair()
        let sent = audio_ring_memfd_create("test-passing")
        try #require(sent >= 0)
        defer { close(sent) }
        #expect(pwrite(sent, "hello", 5, 0) == 5)

        try DescriptorPassing.send([42, 43], descriptors: [sent], over: sockets.left)
        let (bytes, descriptors) = try DescriptorPassing.receive(
            over: sockets.right, maximumBytes: 16, maximumDescriptors: 1)
        #expect(bytes == [42, 43])
        let received = try #require(descriptors.first)
        defer { close(received) }
        #expect(descriptors.count == 1)
        #expect(received != sent)
        #expect(fcntl(received, F_GETFD) & FD_CLOEXEC != 0)

        var text = [UInt8](repeating: 0, count: 5)
        #expect(pread(received, &text, 5, 0) == 5)
        #expect(text == Array("hello".utf8), "written through one, read through the other")
        #expect(pwrite(received, "world", 5, 5) == 5)
        var back = [UInt8](repeating: 0, count: 5)
        #expect(pread(sent, &back, 5, 5) == 5)
        #expect(back == Array("world".utf8))
    }

    @Test("a ring passed over a socket is one ring on both sides")
    func ringRoundTrip() throws {
        let sockets = try SocketPair()
        let producer = try AudioRing.create(capacity: 64, frameBytes: 2, lowWater: 8, name: "test-passed-ring")
        try DescriptorPassing.send([1], descriptors: [producer.descriptor], over: sockets.left)
        let received = try DescriptorPassing.receive(over: sockets.right, maximumBytes: 1, maximumDescriptors: 1)
        let consumer = try AudioRing(mapping: try #require(received.descriptors.first))
        #expect(consumer.capacity == 64 && consumer.frameBytes == 2 && consumer.lowWater == 8)
        #expect([UInt8](1...10).withUnsafeBytes { producer.write($0) } == 10)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(buffer.withUnsafeMutableBytes { consumer.read(into: $0) } == 10)
        #expect(buffer[..<10] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    }

    @Test("bytes without descriptors, then end of file as empty bytes")
    func plainBytesAndEndOfFile() throws {
        let sockets = try SocketPair()
        try DescriptorPassing.send(Array("ring".utf8), descriptors: [], over: sockets.left)
        sockets.close(sockets.left)
        let first = try DescriptorPassing.receive(over: sockets.right, maximumBytes: 64, maximumDescriptors: 4)
        #expect(first.bytes == Array("ring".utf8) && first.descriptors.isEmpty)
        let end = try DescriptorPassing.receive(over: sockets.right, maximumBytes: 64, maximumDescriptors: 4)
        #expect(end.bytes.isEmpty && end.descriptors.isEmpty)
    }

    @Test("more descriptors than expected are all closed, and receive throws")
    func tooManyDescriptors() throws {
        let sockets = try SocketPair()
        var pipe: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&pipe) == 0)
        let (readEnd, writeEnd) = (pipe[0], pipe[1])
        defer { close(readEnd) }
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(readEnd, F_SETFL, O_NONBLOCK)

        try DescriptorPassing.send([7], descriptors: [writeEnd, writeEnd, writeEnd], over: sockets.left)
        close(writeEnd)
        let error = #expect(throws: DescriptorPassingError.self) {
            _ = try DescriptorPassing.receive(over: sockets.right, maximumBytes: 8, maximumDescriptors: 1)
        }
        #expect(error?.code == .tooManyDescriptors)
        #expect(error?.reason == "3 descriptors arrived; at most 1 expected")
        // Had any received copy of the write end stayed open, the pipe would not be at end of
        // file and the non-blocking read would fail with EAGAIN.
        var byte: UInt8 = 0
        #expect(Glibc.read(readEnd, &byte, 1) == 0, "every copy of the write end was closed")
    }

    @Test("sending needs a byte, and a closed peer is an EPIPE error rather than SIGPIPE")
    func sendFailures() throws {
        let sockets = try SocketPair()
        let empty = #expect(throws: DescriptorPassingError.self) {
            try DescriptorPassing.send([], descriptors: [sockets.left], over: sockets.left)
        }
        #expect(empty?.code == .invalidArgument)

        // Shut down, not only closed: a child another test spawns at this moment holds a copy of
        // the descriptor until its exec, and a copy keeps the peer open; a shutdown is the
        // socket's own, whoever else holds it.
        shutdown(sockets.right, Int32(SHUT_RDWR))
        sockets.close(sockets.right)
        let closed = #expect(throws: DescriptorPassingError.self) {
            try DescriptorPassing.send([1], descriptors: [], over: sockets.left)
        }
        #expect(closed?.code == .system && closed?.errorNumber == EPIPE)
        #expect(closed?.reason.hasPrefix("sendmsg: ") == true)
    }
}
