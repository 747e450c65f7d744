import NIOCore
import NIOHTTP1

/// What every connection of one ``TransferServer`` shares.
struct TransferServices: Sendable {
    let documents: DocumentStore
    let log: TransferLog
    /// Where uploads are stored; `nil`: uploads are refused.
    let uploadDirectory: String?
}

/// Answers the requests of one connection, after NIO's HTTP/1.1 server pipeline has parsed
/// them (and queued pipelined ones until the answer before them has ended): documents with
/// ranges and faults, and uploads stored to disk.
///
/// It also holds back reads while upload writes are queued, so a fast client cannot make the
/// server buffer a whole upload in memory.
final class TransferHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum Phase {
        /// Between requests.
        case idle
        /// A request's head has arrived; it is answered when its end arrives.
        case awaitingEnd(index: Int, plan: ResponsePlan, keepAlive: Bool)
        /// An upload's body is arriving.
        case receiving(UploadReceiver)
        /// The answer is going out; anything still arriving for this request is dropped.
        case responding(index: Int)
    }

    let services: TransferServices
    private let connection: Int
    private var phase = Phase.idle
    /// A read the channel asked for while upload writes were queued.
    private var readHeld = false

    init(services: TransferServices, connection: Int) {
        self.services = services
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            received(head, context: context)
        case .body(let buffer):
            if case .receiving(let receiver) = phase {
                receiver.append(buffer, context: context)
            }
        case .end:
            switch phase {
            case .awaitingEnd(let index, let plan, let keepAlive):
                phase = .responding(index: index)
                respond(plan, to: index, keepAlive: keepAlive, context: context)
            case .receiving(let receiver):
                phase = .responding(index: receiver.index)
                receiver.finish(context: context)
            case .idle, .responding:
                break
            }
        }
    }

    private func received(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        let path = String(head.uri.prefix { $0 != "?" })
        let index = services.log.begin(
            TransferServer.Request(
                connection: connection, method: head.method.rawValue, path: head.uri, headers: headers, status: 0,
                bodyBytesSent: 0, bodyBytesReceived: 0, outcome: .inProgress))
        let isUpload = (head.method == .PUT || head.method == .POST) && path.hasPrefix("/upload/")
        guard isUpload else {
            let plan = services.documents.plan(method: head.method.rawValue, path: path, headers: headers)
            phase = .awaitingEnd(index: index, plan: plan, keepAlive: head.isKeepAlive)
            return
        }
        switch UploadReceiver.start(head, path: path, headers: headers, index: index, handler: self) {
        case .receiving(let receiver):
            phase = .receiving(receiver)
            if headers["expect"]?.lowercased() == "100-continue" {
                let proceed = HTTPResponseHead(version: head.version, status: .continue)
                context.writeAndFlush(wrapOutboundOut(.head(proceed)), promise: nil)
            }
        case .refused(var plan):
            if headers["expect"]?.lowercased() == "100-continue" {
                // The client waits for a word before it sends the body: answer now, and close,
                // as what remains of the request will not be read.
                plan.closesConnection = true
                phase = .responding(index: index)
                respond(plan, to: index, keepAlive: false, context: context)
            } else {
                phase = .awaitingEnd(index: index, plan: plan, keepAlive: head.isKeepAlive)
            }
        }
    }

    /// Called when a response has ended and the connection may serve the next request.
    func responseEnded() {
        phase = .idle
    }

    /// Reads again once queued upload writes are few, if a read was held back.
    func uploadWritesDrained(context: ChannelHandlerContext) {
        if readHeld {
            readHeld = false
            context.read()
        }
    }

    func read(context: ChannelHandlerContext) {
        if case .receiving(let receiver) = phase, receiver.isBacklogged {
            readHeld = true
            return
        }
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        switch phase {
        case .awaitingEnd(let index, _, _), .responding(let index):
            services.log.closedEarly(index)
        case .receiving(let receiver):
            receiver.abandon()
            services.log.closedEarly(receiver.index)
        case .idle:
            break
        }
        phase = .idle
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset by the client, a TLS failure: this connection is over, the server is not.
        context.close(promise: nil)
    }
}
