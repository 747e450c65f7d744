import NIOCore
import NIOHTTP1

extension TransferHandler {
    /// Sends `plan`: the head, the body (streamed for documents), and the ending the plan's
    /// faults call for.
    func respond(_ plan: ResponsePlan, to index: Int, keepAlive: Bool, context: ChannelHandlerContext) {
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: plan.status))
        for (name, value) in plan.headers { head.headers.add(name: name, value: value) }
        let closes = plan.closesConnection || !keepAlive
        if closes { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        services.log.update(index) { $0.status = plan.status }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        switch plan.body {
        case .none:
            end(index, closing: closes, context: context)
        case .text(let text):
            services.log.update(index) { $0.bodyBytesSent = Int64(text.utf8.count) }
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: text)))), promise: nil)
            end(index, closing: closes, context: context)
        case .document(let body, let offset, let length):
            context.flush()
            let stream: BodyStream
            do {
                stream = try BodyStream(body, offset: offset, plan: plan, length: length, index: index, handler: self)
            } catch {
                // The file went away after it was served: the head is out, so only a cut is left.
                context.close(promise: nil)
                return
            }
            stream.send(context: context) { [self] sent in
                guard sent else {
                    context.close(promise: nil)
                    return
                }
                finish(plan.ending, index: index, closing: closes, context: context)
            }
        }
    }

    private func finish(_ ending: ResponsePlan.Ending, index: Int, closing: Bool, context: ChannelHandlerContext) {
        switch ending {
        case .complete:
            end(index, closing: closing, context: context)
        case .close:
            services.log.closedEarly(index)
            context.close(promise: nil)
        case .stall:
            break  // the connection stays open, silent, until the client or a shutdown closes it
        case .overrun(let extra):
            services.log.update(index) { $0.bodyBytesSent += Int64(extra) }
            let garbage = ByteBuffer(repeating: UInt8(ascii: "X"), count: extra)
            context.write(wrapOutboundOut(.body(.byteBuffer(garbage))), promise: nil)
            end(index, closing: true, context: context)
        }
    }

    /// Ends a response, then closes the connection or lets it serve the next request.
    func end(_ index: Int, closing: Bool, context: ChannelHandlerContext) {
        services.log.update(index) { $0.outcome = .complete }
        responseEnded()
        let ended = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if closing {
            ended.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
