import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Logging
import NIOCore

/// Closes a connection whose peer stops reading its replies.
///
/// When replies pile up past the channel's high-water mark the channel turns unwritable;
/// if it stays so for `timeout`, the peer is not reading and is disconnected, so it cannot
/// pin the daemon's memory. Other clients never notice.
final class StalledReaderHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let timeout: TimeAmount
    private let logger: Logger
    private var pendingClose: Scheduled<Void>?

    init(timeout: TimeAmount, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // Stop reading requests while replies wait: a client that writes without reading
        // must not make the daemon buffer replies without bound.
        context.channel.setOption(ChannelOptions.autoRead, value: context.channel.isWritable).whenComplete { _ in }
        if context.channel.isWritable {
            pendingClose?.cancel()
            pendingClose = nil
        } else if pendingClose == nil {
            let loopBoundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
            let logger = self.logger
            let timeout = self.timeout
            pendingClose = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                logger.warning("disconnecting a client that has not read its replies for \(timeout)")
                loopBoundContext.value.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        pendingClose?.cancel()
        pendingClose = nil
        context.fireChannelInactive()
    }
}
