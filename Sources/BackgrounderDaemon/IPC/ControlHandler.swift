import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation
import Logging
import NIOCore

/// Answers one connection's requests on its event loop, in order.
///
/// Most requests are answered right there, from state the services publish behind locks, so
/// a round trip costs one read and one write on one thread. A request that must wait (a
/// rescan) runs as a task; lines that arrive meanwhile queue up so replies keep their order.
final class ControlHandler: ChannelInboundHandler {
    typealias InboundIn = ControlFrame
    typealias OutboundOut = ByteBuffer

    /// Lines a client may pipeline behind a slow request before it is disconnected.
    static let maximumQueuedLines = 1024
    /// The largest reply the daemon sends; a larger one is replaced by an `ERROR`.
    static let maximumReplyBytes = 4 * 1024 * 1024
    /// Replies that may wait unread for one connection before it is disconnected at once
    /// (the stalled-reader timeout handles slower build-ups).
    static let maximumQueuedBytes = 16 * 1024 * 1024

    private let router: RequestRouter
    private let principal: Principal
    private let daemon: DaemonContext
    private let logger: Logger
    private let codec = LineCodec()
    private var queued = CircularBuffer<ControlFrame>()
    private var identity: ConnectionIdentity?
    private var waitingForReply = false
    /// The peer will send nothing more (it shut its side, or hung up): once the requests it
    /// sent are answered, the connection is over.
    private var inputEnded = false

    init(router: RequestRouter, principal: Principal, context: DaemonContext, logger: Logger) {
        self.router = router
        self.principal = principal
        self.daemon = context
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        identity = ConnectionIdentity(channel: context.channel)
        daemon.clientCount.add(1, ordering: .relaxed)
        logger.debug("client connected")
        context.writeAndFlush(wrapOutboundOut(encode(DaemonMessage(.version(.current)))), promise: nil)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        daemon.clientCount.subtract(1, ordering: .relaxed)
        if let identity, let bundle = identity.bundle {
            let apps = daemon.apps
            Task { await apps.disconnected(bundle, channel: identity.channel) }
        }
        logger.debug("client disconnected")
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard !waitingForReply else {
            guard queued.count < Self.maximumQueuedLines else {
                logger.warning("disconnecting a client that queued \(queued.count) lines behind a slow request")
                context.close(promise: nil)
                return
            }
            queued.append(frame)
            return
        }
        handle(frame, context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        context.fireChannelReadComplete()
    }

    /// End of input (the socket allows half-closure, so it does not close the channel): a
    /// script's `echo ... | socat` still gets its replies, then the connection closes. Without
    /// this, a peer that hung up after the daemon's greeting reached it stayed open, and
    /// counted against its limit, for good.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            inputEnded = true
            closeIfAnswered(context: context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Closes a connection whose input ended once nothing is left to answer, after what was
    /// written has gone out.
    private func closeIfAnswered(context: ChannelHandlerContext) {
        guard inputEnded, !waitingForReply, queued.isEmpty else { return }
        let written = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)))
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.assumeIsolated().whenComplete { _ in bound.value.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        logger.debug("client connection ended: \(error)")
        context.close(promise: nil)
    }

    private func handle(_ frame: ControlFrame, context: ChannelHandlerContext) {
        switch frame {
        case .line(let line):
            guard line.readableBytes > 0 else { return }
            let identity = self.identity ?? ConnectionIdentity(channel: context.channel)
            self.identity = identity
            switch router.route(line, from: principal, connection: identity, logger: logger) {
            case .now(let reply):
                send(reply, context: context, flush: false)
            case .later(let operation):
                waitingForReply = true
                let promise = context.eventLoop.makePromise(of: DaemonMessage.self)
                promise.completeWithTask(operation)
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                promise.futureResult.assumeIsolated().whenSuccess { reply in
                    let (handler, context) = bound.value
                    handler.send(reply, context: context, flush: true)
                    handler.waitingForReply = false
                    handler.drainQueue(context: context)
                    handler.closeIfAnswered(context: context)
                }
            }
        case .overlong(let count):
            logger.notice("discarded a \(count)-byte line")
            let error = ProtocolError(
                .lineTooLong,
                "a \(count)-byte line was discarded; lines may hold at most \(WireLimits.maximumLineLength) bytes"
            )
            send(DaemonMessage(.error(error)), context: context, flush: false)
        }
    }

    /// Writes a reply within the caps: one reply's size, and what may wait unread.
    private func send(_ reply: DaemonMessage, context: ChannelHandlerContext, flush: Bool) {
        var bytes = encode(reply)
        if bytes.readableBytes > Self.maximumReplyBytes {
            logger.warning("a \(reply.className) reply of \(bytes.readableBytes) bytes was replaced by an error")
            let error = ProtocolError(
                .limitReached,
                "the \(reply.className) reply would be \(bytes.readableBytes) bytes; replies may hold at most \(Self.maximumReplyBytes)"
            )
            bytes = encode(DaemonMessage(id: reply.id, .error(error)))
        }
        let queued = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        guard queued + bytes.readableBytes <= Self.maximumQueuedBytes else {
            logger.warning(
                "disconnecting a client with \(queued) bytes of replies unread (at most \(Self.maximumQueuedBytes) may wait)"
            )
            context.close(promise: nil)
            return
        }
        if flush {
            context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        } else {
            context.write(wrapOutboundOut(bytes), promise: nil)
        }
    }

    private func drainQueue(context: ChannelHandlerContext) {
        while !waitingForReply, let frame = queued.popFirst() {
            handle(frame, context: context)
        }
        context.flush()
    }

    private func encode(_ message: DaemonMessage) -> ByteBuffer {
        do {
            return ByteBuffer(bytes: try codec.encode(message))
        } catch {
            // Only a non-finite number can fail to encode; say so rather than go silent.
            logger.error("could not encode a \(message.className) reply: \(error)")
            let fallback = DaemonMessage(
                id: message.id, .error(ProtocolError(.failed, "the daemon could not encode its reply")))
            return ByteBuffer(bytes: (try? codec.encode(fallback)) ?? Data("{\"class\":\"ERROR\"}\n".utf8))
        }
    }
}
