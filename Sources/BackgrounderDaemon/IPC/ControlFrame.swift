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
import NIOCore

/// What the line decoder hands the connection loop: a line, or the news that a line was
/// too long and has been discarded.
enum ControlFrame: Sendable {
    /// A complete line without its newline.
    case line(ByteBuffer)
    /// A line over the cap, discarded up to its newline; the connection goes on.
    case overlong(byteCount: Int)
}

/// Splits the byte stream into lines of at most `maximumLength` bytes.
///
/// An overlong line is skipped without being buffered, so a client sending 10 MB without a
/// newline costs the daemon at most one read buffer, and it hears why.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = ControlFrame

    let maximumLength: Int
    /// Bytes of the current overlong line thrown away so far; `nil` when not discarding.
    private var discarded: Int?

    init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if discarded != nil || buffer.readableBytes > maximumLength {
                discarded = (discarded ?? 0) + buffer.readableBytes
                buffer.moveReaderIndex(to: buffer.writerIndex)
            }
            return .needMoreData
        }
        let length = newline - view.startIndex
        if let alreadyDiscarded = discarded {
            buffer.moveReaderIndex(forwardBy: length + 1)
            discarded = nil
            context.fireChannelRead(wrapInboundOut(.overlong(byteCount: alreadyDiscarded + length)))
            return .continue
        }
        if length > maximumLength {
            buffer.moveReaderIndex(forwardBy: length + 1)
            context.fireChannelRead(wrapInboundOut(.overlong(byteCount: length)))
            return .continue
        }
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        // People typing into socat or telnet may send CRLF.
        if line.readableBytesView.last == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        context.fireChannelRead(wrapInboundOut(.line(line)))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // Half a line and then a hang-up: there is nobody left to answer.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
