import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An app's connection to the daemon: requests answered synchronously (the reader thread
/// hands each reply to the caller waiting for it), notices delivered to a handler.
///
/// When the daemon goes away (a restart, an upgrade, a crash) the connection can come back:
/// with a ``Reconnection``, the reader thread connects to the daemon's socket again with
/// backoff, and the same object carries on over the new socket, so whoever holds it keeps
/// working. Requests made while it is away fail at once with `closedByDaemon`.
final class AppConnection: Sendable {
    /// How a lost connection is made again.
    struct Reconnection: Sendable {
        /// Connects once; throws when no daemon answers.
        var connect: @Sendable () throws -> Int32
        /// The longest the app waits for a daemon before giving up.
        var patience: Duration
        /// Called on a thread of its own once connected again (requests work there).
        var onReconnect: @Sendable () -> Void
    }

    private let descriptor: Atomic<Int32>
    private let reconnection: Reconnection?
    private let codec = LineCodec()
    private let state = Locked(State())
    private let writeLock = Locked(())
    private let onNotice: @Sendable (DaemonMessage) -> Void
    private let onClose: @Sendable () -> Void

    private struct State {
        var nextID = 1
        var waiting: [Int: Waiter] = [:]
        var closed = false
    }

    private final class Waiter: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let reply = Locked<DaemonMessage?>(nil)
        /// Run on the reader thread with the reply, before it reads on.
        let inOrder: (@Sendable (DaemonMessage) -> Void)?

        init(inOrder: (@Sendable (DaemonMessage) -> Void)? = nil) {
            self.inOrder = inOrder
        }
    }

    /// The environment variable naming the descriptor the daemon hands an app at launch.
    static let descriptorVariable = "BACKGROUNDER_FD"

    /// The connection the daemon handed this process at launch (`BACKGROUNDER_FD`).
    ///
    /// It is the app's identity: the daemon made it for this launch, so nothing the app
    /// claims is needed. It is made close-on-exec here so programs the app runs do not
    /// inherit it.
    /// - Throws: ``ControlClientError`` when the variable is missing or names no socket.
    static func inherited() throws(ControlClientError) -> Int32 {
        guard let text = ProcessInfo.processInfo.environment[descriptorVariable], let descriptor = Int32(text),
            descriptor >= 0
        else {
            throw .unreadableReply(
                "\(descriptorVariable) is not set: apps are launched by backgrounderd (`bgctl open ID`)")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else {
            throw .unreadableReply("\(descriptorVariable)=\(descriptor) is not a socket the daemon handed this process")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        return descriptor
    }

    /// Starts reading on a connected descriptor.
    /// - Parameters:
    ///   - descriptor: The connection (see ``inherited()``).
    ///   - onNotice: Called on the reader thread for every message that answers no request.
    ///   - onClose: Called on the reader thread when the daemon closes the connection for
    ///     good (no reconnection, or none within its patience).
    ///   - reconnection: How to come back when the daemon closes the connection; without it,
    ///     the close is final.
    init(
        descriptor: Int32,
        reconnection: Reconnection? = nil,
        onNotice: @escaping @Sendable (DaemonMessage) -> Void,
        onClose: @escaping @Sendable () -> Void
    ) {
        self.descriptor = Atomic(descriptor)
        self.reconnection = reconnection
        self.onNotice = onNotice
        self.onClose = onClose
        startThread(named: "backgroundkit-reader") { [self] in readLoop() }
    }

    /// Sends a request and blocks until its reply arrives.
    func request(_ body: ClientMessage.Body) throws -> DaemonMessage {
        try request(body, inOrder: nil)
    }

    /// Sends a request and blocks until its reply arrives.
    /// - Parameter inOrder: Called with the reply on the reader thread, before any notice
    ///   that follows it is handed to `onNotice`. What the caller does after the reply
    ///   returns races with those notices; what this does is ordered with them (a check-in's
    ///   state, then the transitions the daemon sent after it).
    func request(
        _ body: ClientMessage.Body, inOrder: (@Sendable (DaemonMessage) -> Void)?
    ) throws -> DaemonMessage {
        let waiter = Waiter(inOrder: inOrder)
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
            do throws(WriteFailure) {
                // A daemon that died must not take the app with it (SIGPIPE): the write fails,
                // and the reader reconnects.
                try writeAll(descriptor.load(ordering: .acquiring), data, socket: true)
            } catch {
                throw ControlClientError.system("write", error.code)
            }
        }
    }

    private func readLoop() {
        while true {
            let current = descriptor.load(ordering: .acquiring)
            read(from: current)
            let waiters = state.withLock { state in
                state.closed = true
                defer { state.waiting.removeAll() }
                return Array(state.waiting.values)
            }
            waiters.forEach { $0.semaphore.signal() }
            close(current)
            guard let reconnection, let next = Self.reconnect(reconnection) else { break }
            descriptor.store(next, ordering: .releasing)
            state.withLock { $0.closed = false }
            startThread(named: "backgroundkit-reconnected") { reconnection.onReconnect() }
        }
        onClose()
    }

    /// Tries to connect until it works or the patience runs out: every 25 ms for the first
    /// two seconds, since a restarting daemon serves again within a few hundred milliseconds
    /// and every try later than that is heard as a longer audio gap (a failed connect costs
    /// microseconds); then doubling from 100 ms to at most 2 s for a daemon that is slow to
    /// come back.
    private static func reconnect(_ reconnection: Reconnection) -> Int32? {
        let start = ContinuousClock.now
        let deadline = start + reconnection.patience
        var delay = Duration.milliseconds(100)
        while ContinuousClock.now < deadline {
            if let descriptor = try? reconnection.connect() { return descriptor }
            if ContinuousClock.now - start < .seconds(2) {
                Thread.sleep(forTimeInterval: 0.025)
            } else {
                Thread.sleep(forTimeInterval: delay.seconds)
                delay = min(delay * 2, .seconds(2))
            }
        }
        return nil
    }

    /// Reads lines until the daemon closes the connection.
    private func read(from descriptor: Int32) {
        var buffer = LineBuffer()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = retryingInterrupted { Glibc.read(descriptor, &chunk, chunk.count) }
            guard count > 0 else { return }
            buffer.append(chunk[..<count])
            while let line = try? buffer.nextLine() {
                guard let message = try? codec.decode(DaemonMessage.self, from: line) else { continue }
                if case .number(let id)? = message.id,
                    let waiter = state.withLock({ $0.waiting.removeValue(forKey: id) })
                {
                    waiter.inOrder?(message)
                    waiter.reply.withLock { $0 = message }
                    waiter.semaphore.signal()
                } else {
                    onNotice(message)
                }
            }
        }
    }
}
