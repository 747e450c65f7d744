import BackgrounderProtocol
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An app's connection to the daemon: requests answered synchronously (the reader thread
/// hands each reply to the caller waiting for it), notices delivered to a handler.
final class AppConnection: Sendable {
    private let descriptor: Int32
    private let codec = LineCodec()
    private let state = Mutex(State())
    private let writeLock = Mutex(())
    private let onNotice: @Sendable (DaemonMessage) -> Void
    private let onClose: @Sendable () -> Void

    private struct State {
        var nextID = 1
        var waiting: [Int: Waiter] = [:]
        var closed = false
    }

    private final class Waiter: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let reply = Mutex<DaemonMessage?>(nil)
    }

    /// Connects and starts reading.
    /// - Parameters:
    ///   - socketPath: The daemon's socket.
    ///   - onNotice: Called on the reader thread for every message that answers no request.
    ///   - onClose: Called on the reader thread when the daemon closes the connection.
    init(
        socketPath: String,
        onNotice: @escaping @Sendable (DaemonMessage) -> Void,
        onClose: @escaping @Sendable () -> Void
    ) throws {
        let descriptor = try DaemonSocket.connect(to: socketPath)
        self.descriptor = descriptor
        self.onNotice = onNotice
        self.onClose = onClose
        let thread = Thread { [self] in readLoop() }
        thread.name = "backgroundkit-reader"
        thread.start()
    }

    /// Sends a request and blocks until its reply arrives.
    func request(_ body: ClientMessage.Body) throws -> DaemonMessage {
        let waiter = Waiter()
        let id: Int = try state.withLock { state in
            guard !state.closed else { throw ControlClientError.closedByDaemon }
            let id = state.nextID
            state.nextID += 1
            state.waiting[id] = waiter
            return id
        }
        try send(ClientMessage(id: .number(id), body))
        waiter.semaphore.wait()
        guard let reply = waiter.reply.withLock({ $0 }) else { throw ControlClientError.closedByDaemon }
        return reply
    }

    /// Sends a request without waiting; its reply, carrying no id, is dropped as a notice.
    func post(_ body: ClientMessage.Body) throws {
        try send(ClientMessage(body))
    }

    private func send(_ message: ClientMessage) throws {
        let data = try codec.encode(message)
        try writeLock.withLock { _ in
            try data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { throw ControlClientError.system("write", errno) }
                    offset += written
                }
            }
        }
    }

    private func readLoop() {
        var buffer = LineBuffer()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            buffer.append(chunk[..<count])
            while let line = try? buffer.nextLine() {
                guard let message = try? codec.decode(DaemonMessage.self, from: line) else { continue }
                if case .number(let id)? = message.id,
                    let waiter = state.withLock({ $0.waiting.removeValue(forKey: id) })
                {
                    waiter.reply.withLock { $0 = message }
                    waiter.semaphore.signal()
                } else {
                    onNotice(message)
                }
            }
        }
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiting.removeAll() }
            return Array(state.waiting.values)
        }
        waiters.forEach { $0.semaphore.signal() }
        close(descriptor)
        onClose()
    }
}
