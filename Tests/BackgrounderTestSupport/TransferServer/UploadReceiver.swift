import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// Stores one upload's body to a file as it arrives (writes chained in order on the thread
/// pool), then answers 201 with what arrived: its length and SHA-256.
final class UploadReceiver {
    /// How a new upload goes.
    enum Start {
        case receiving(UploadReceiver)
        /// Answered without storing: a fault, no upload directory, a file that cannot be made.
        case refused(ResponsePlan)
    }

    /// Queued writes beyond which the connection stops reading.
    private static let backlogLimit = 4

    let index: Int
    private let method: String
    private let target: String
    private let headers: [String: String]
    private let file: DiskFile
    private let handler: TransferHandler
    /// Where a `cutAfter` fault closes the connection.
    private let cutAfter: Int64?
    private var received: Int64 = 0
    private var queued = 0
    private let keepAlive: Bool
    private var writes: EventLoopFuture<Void>?

    private init(
        index: Int, head: HTTPRequestHead, headers: [String: String], file: DiskFile, cutAfter: Int64?,
        handler: TransferHandler
    ) {
        self.index = index
        method = head.method.rawValue
        target = head.uri
        keepAlive = head.isKeepAlive
        self.headers = headers
        self.file = file
        self.cutAfter = cutAfter
        self.handler = handler
    }

    /// Begins an upload to `path` (under `/upload/`), or says how to refuse it.
    static func start(
        _ head: HTTPRequestHead, path: String, headers: [String: String], index: Int, handler: TransferHandler
    ) -> Start {
        let faults = handler.services.documents.uploadFaults(for: path)
        for fault in faults {
            if case .status(let status, let retryAfter) = fault {
                let extra = retryAfter.map { [("Retry-After", "\($0)")] } ?? []
                return .refused(.text(status, "status \(status) by fault injection\n", headers: extra))
            }
        }
        guard let directory = handler.services.uploadDirectory else {
            return .refused(.text(403, "this server was started without an upload directory\n"))
        }
        // One file per path: "/upload/a/b.bin" is stored as "a_b.bin", never outside the directory.
        var name = path.dropFirst("/upload/".count).replacingOccurrences(of: "/", with: "_")
        if name.isEmpty || name == "." || name == ".." { name = "upload" }
        let file: DiskFile
        do {
            file = try DiskFile.create(writing: directory + "/" + name)
        } catch {
            return .refused(.text(500, "cannot store the upload: \(error)\n"))
        }
        let cut = faults.lazy.compactMap { if case .cutAfter(let bytes) = $0 { bytes } else { nil } }.min()
        return .receiving(
            UploadReceiver(index: index, head: head, headers: headers, file: file, cutAfter: cut, handler: handler))
    }

    /// Whether so many writes are queued that reading should pause.
    var isBacklogged: Bool { queued >= Self.backlogLimit }

    /// Queues a part of the body behind the writes before it.
    func append(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
        received += Int64(buffer.readableBytes)
        let received = received
        handler.services.log.update(index) { $0.bodyBytesReceived = received }
        if let cutAfter, received >= cutAfter {
            context.close(promise: nil)
            return
        }
        queued += 1
        let eventLoop = context.eventLoop
        let previous = writes ?? eventLoop.makeSucceededVoidFuture()
        let written = previous.flatMap { [file] in file.write(buffer, on: eventLoop) }
        writes = written
        // A failed write fails every one chained after it, and so the answer: no need to keep it.
        written.assumeIsolated().whenComplete { [self] _ in
            queued -= 1
            if !isBacklogged { handler.uploadWritesDrained(context: context) }
        }
    }

    /// After the body's end: waits for the writes, digests the file and answers.
    func finish(context: ChannelHandlerContext) {
        let eventLoop = context.eventLoop
        let path = file.path
        let written = (writes ?? eventLoop.makeSucceededVoidFuture()).flatMap { [file] in
            file.close()
            return eventLoop.makeSucceededVoidFuture()
        }.flatMapErrorThrowing { [file] error in
            file.close()
            throw error
        }
        written.flatMap { () -> EventLoopFuture<String> in
            NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop) {
                try TransferServer.blockingSHA256(ofFile: path)
            }
        }.assumeIsolated().whenComplete { [self] result in
            switch result {
            case .success(let sha256):
                let upload = TransferServer.Upload(
                    method: method, path: target, file: path, bytes: received, sha256: sha256, headers: headers)
                handler.services.log.add(upload)
                handler.respond(Self.receipt(upload), to: index, keepAlive: keepAlive, context: context)
            case .failure(let error):
                handler.respond(
                    .text(500, "cannot store the upload: \(error)\n"), to: index, keepAlive: false, context: context)
            }
        }
    }

    /// Closes the file of an upload whose connection went away (its writes end first).
    func abandon() {
        guard let writes else {
            file.close()
            return
        }
        writes.whenComplete { [file] _ in file.close() }
    }

    private struct Receipt: Encodable {
        var path: String
        var file: String
        var bytes: Int64
        var sha256: String
    }

    private static func receipt(_ upload: TransferServer.Upload) -> ResponsePlan {
        let receipt = Receipt(
            path: upload.path, file: (upload.file as NSString).lastPathComponent, bytes: upload.bytes,
            sha256: upload.sha256)
        let json = (try? JSONEncoder().encode(receipt)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ResponsePlan.text(201, json + "\n", headers: []).withContentType("application/json")
    }
}

extension ResponsePlan {
    /// The same answer with another `Content-Type`.
    fileprivate func withContentType(_ type: String) -> ResponsePlan {
        var plan = self
        plan.headers = plan.headers.map { $0.0 == "Content-Type" ? ($0.0, type) : $0 }
        return plan
    }
}
