import NIOCore

/// Sends a document's body a chunk at a time: the next chunk is read from disk only when the
/// last one was handed to the network, so however large the document and however slow the
/// client, the server holds one chunk of it in memory per response.
final class BodyStream {
    private enum Source {
        case file(DiskFile)
        case data(ByteBuffer)
    }

    /// Chunks of a quarter megabyte: few trips to the thread pool, little memory.
    static let chunkSize = 256 * 1024

    private let source: Source
    private let offset: Int64
    /// The bytes to send before the plan's ending: all of them, or up to a cut or a stall.
    private let target: Int64
    private let chunk: Int
    /// The wait after each chunk when dripping.
    private let pause: TimeAmount?
    private let index: Int
    private let handler: TransferHandler
    private var sent: Int64 = 0

    /// Opens the document's body for one response.
    /// - Throws: ``HarnessError`` when its file cannot be opened.
    init(
        _ body: Document.Body, offset: Int64, plan: ResponsePlan, length: Int64, index: Int, handler: TransferHandler
    ) throws {
        switch body {
        case .file(let path): source = .file(try DiskFile.open(reading: path))
        case .data(let bytes): source = .data(bytes)
        }
        self.offset = offset
        switch plan.ending {
        case .close(let after), .stall(let after): target = min(after, length)
        case .complete, .overrun: target = length
        }
        if let rate = plan.bytesPerSecond {
            // Ten chunks a second, or one byte at a time when slower than that.
            chunk = max(1, rate / 10)
            pause = .nanoseconds(Int64(chunk) * 1_000_000_000 / Int64(rate))
        } else {
            chunk = Self.chunkSize
            pause = nil
        }
        self.index = index
        self.handler = handler
    }

    /// Sends the body up to its target, then calls `completion` with whether all of it went
    /// out (false: the connection failed or closed on the way).
    func send(context: ChannelHandlerContext, completion: @escaping (Bool) -> Void) {
        guard sent < target else {
            close()
            completion(true)
            return
        }
        let count = Int(min(Int64(chunk), target - sent))
        let log = handler.services.log
        log.buffer(Int64(count))
        read(count, on: context.eventLoop).assumeIsolated().flatMap { [handler] buffer -> EventLoopFuture<Void> in
            guard buffer.readableBytes == count else {
                return context.eventLoop.makeFailedFuture(HarnessError("the document's file is shorter than served"))
            }
            return context.writeAndFlush(handler.wrapOutboundOut(.body(.byteBuffer(buffer))))
        }.whenComplete { [self] result in
            log.buffer(-Int64(count))
            guard case .success = result else {
                close()
                completion(false)
                return
            }
            sent += Int64(count)
            log.update(index) { $0.bodyBytesSent += Int64(count) }
            if let pause {
                _ = context.eventLoop.assumeIsolated().scheduleTask(in: pause) {
                    self.send(context: context, completion: completion)
                }
            } else {
                send(context: context, completion: completion)
            }
        }
    }

    private func read(_ count: Int, on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer> {
        let at = offset + sent
        switch source {
        case .file(let file):
            return file.read(at: at, count: count, on: eventLoop)
        case .data(let bytes):
            return eventLoop.makeSucceededFuture(
                bytes.getSlice(at: bytes.readerIndex + Int(at), length: count) ?? ByteBuffer())
        }
    }

    private func close() {
        if case .file(let file) = source { file.close() }
    }
}
