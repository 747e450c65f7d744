public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking connection to the daemon's control socket, for command-line tools and
/// scripts: send a request, wait for the reply with the same `id`.
///
/// Not for use on Swift's cooperative thread pool; it blocks in `read(2)`.
public final class ControlClient {
    private let descriptor: Int32
    private var buffer = LineBuffer()
    private var nextID = 1
    private let codec = LineCodec()
    /// The greeting the daemon sent on connect.
    public private(set) var greeting: VersionInfo?

    /// Connects to the daemon and reads its greeting.
    /// - Parameters:
    ///   - socketPath: The control socket.
    ///   - timeout: How long to wait for any one reply.
    /// - Throws: ``ControlClientError``; `.daemonNotRunning` when nothing listens there.
    public init(socketPath: String, timeout: Duration = .seconds(10)) throws(ControlClientError) {
        descriptor = try DaemonSocket.connect(to: socketPath)
        do throws(ControlClientError) {
            try Self.setTimeout(descriptor, timeout)
            let first = try receive()
            if case .version(let info) = first.body {
                greeting = info
            }
        } catch {
            close(descriptor)
            throw error
        }
    }

    deinit {
        close(descriptor)
    }

    /// Sends a request and waits for the message that answers it.
    /// - Parameter body: The request.
    /// - Returns: The reply (which may be an `ERROR`).
    /// - Throws: ``ControlClientError`` on I/O failure, timeout or an unreadable reply.
    public func request(_ body: ClientMessage.Body) throws(ControlClientError) -> DaemonMessage {
        let id = MessageID.number(nextID)
        nextID += 1
        try send(ClientMessage(id: id, body))
        while true {
            let message = try receive()
            if message.id == id { return message }
        }
    }

    /// Sends one request without waiting.
    /// - Parameter message: The request.
    /// - Throws: ``ControlClientError`` when the write fails.
    public func send(_ message: ClientMessage) throws(ControlClientError) {
        let data: Data
        do {
            data = try codec.encode(message)
        } catch {
            throw .unreadableReply("could not encode the request: \(error)")
        }
        try writeAll(data)
    }

    /// Writes raw bytes to the socket (used by tests and benchmarks that speak the protocol by hand).
    /// - Parameter data: The bytes.
    /// - Throws: ``ControlClientError`` when the write fails.
    public func writeAll(_ data: Data) throws(ControlClientError) {
        do {
            try BackgrounderProtocol.writeAll(descriptor, data)
        } catch {
            throw .system("write", error.code)
        }
    }

    /// Waits for messages without a time limit from now on: for a connection that follows
    /// what the daemon sends unasked (`NOTIFICATIONS_FOLLOW`).
    public func waitWithoutTimeout() throws(ControlClientError) {
        try Self.setTimeout(descriptor, .zero)
    }

    /// Reads the next message from the daemon.
    /// - Returns: The message.
    /// - Throws: ``ControlClientError`` on end of stream, timeout or an unreadable line.
    public func receive() throws(ControlClientError) -> DaemonMessage {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let line: [UInt8]?
            do {
                line = try buffer.nextLine()
            } catch {
                throw .unreadableReply(error.message)
            }
            if let line {
                do {
                    return try codec.decode(DaemonMessage.self, from: line)
                } catch {
                    throw .unreadableReply(error.message)
                }
            }
            let count = retryingInterrupted { read(descriptor, &chunk, chunk.count) }
            if count == 0 { throw .closedByDaemon }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { throw .timedOut }
                throw .system("read", errno)
            }
            buffer.append(chunk[..<count])
        }
    }

    private static func setTimeout(_ descriptor: Int32, _ timeout: Duration) throws(ControlClientError) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        let size = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, size) == 0,
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, size) == 0
        else { throw .system("setsockopt", errno) }
    }
}

/// Why talking to the daemon failed.
public enum ControlClientError: Error, Sendable, CustomStringConvertible {
    /// Nothing listens on the socket.
    case daemonNotRunning(String)
    /// The socket path does not fit in `sockaddr_un`.
    case socketPathTooLong(String)
    /// Something other than a socket is at the path: what it is.
    case notASocket(String, String)
    /// A system call failed.
    case system(String, Int32)
    /// No reply came in time.
    case timedOut
    /// The daemon closed the connection.
    case closedByDaemon
    /// A reply could not be decoded.
    case unreadableReply(String)
    /// The daemon answered with an `ERROR`; its message.
    case refused(String)

    public var description: String {
        switch self {
        case .daemonNotRunning(let path):
            "backgrounderd is not running (nothing listens on \(path)); start it with `backgrounderd --socket \(path)`, or point --socket or BACKGROUNDER_SOCKET at a running daemon"
        case .socketPathTooLong(let path):
            "the socket path \(path) is \(path.utf8.count) bytes, longer than a Unix socket's \(DaemonSocket.maximumPathLength); choose a shorter one"
        case .notASocket(let path, let what):
            "\(path) is \(what), not a socket; point --socket or BACKGROUNDER_SOCKET at backgrounderd's socket"
        case .system(let call, let code):
            "\(call) failed: \(String(cString: strerror(code)))"
        case .timedOut:
            "the daemon did not answer in time"
        case .closedByDaemon:
            "the daemon closed the connection"
        case .unreadableReply(let reason):
            "unreadable reply from the daemon: \(reason)"
        case .refused(let message):
            message
        }
    }
}
