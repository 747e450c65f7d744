import BackgrounderAppCore
import BackgrounderCore
import BackgrounderProtocol
package import BackgrounderSystem
import CAudioRing
import Foundation
package import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The audio (descriptor) socket: where an app fetches a stream's ring (a memfd, passed
/// with SCM_RIGHTS, which the NIO control socket cannot carry), or a file a person shared
/// with it.
///
/// The exchanges (docs/PROTOCOL.md): the app connects and sends `ATTACH TOKEN\n` with the
/// token from `AUDIO_STREAM`; the daemon checks that the process is one of the app's that opened the stream and
/// answers `OK\n` with the ring attached, or `ERR reason\n`. The connection then stays open
/// as the stream's notification channel. Or it sends `OPEN PATH\n` and is answered
/// `OK file\n` or `OK directory\n` with the descriptor attached (``SharedFiles``), or `ERR
/// reason\n`, and the connection is closed.
///
/// One thread serves the socket, and no client can hold another up: connections wait for
/// their line side by side (each given a second), and a process holds at most
/// ``waitingPerClient`` of them, counted by app (or by uid for processes of no app). Served one
/// at a time, 40 silent connections of one app kept another's attach waiting until its token
/// expired.
package final class AudioSocketServer: Sendable {
    /// How many unanswered connections one app (or one uid outside any app) may hold.
    package static let waitingPerClient = 4
    /// How long a connection may take to send its line.
    package static let lineDeadline: Duration = .seconds(1)

    /// The socket's path.
    package let path: String
    private let listener: Int32
    private let engine: AudioEngine
    private let logger: Logger
    private let wakeup: WakeupPipe
    private let identify: @Sendable (PeerProcess) -> ProcessOwner
    private let sharedFiles: SharedFiles
    /// The longest line: `OPEN ` and a path of `PATH_MAX` bytes.
    package static let maximumLine = 5 + Int(PATH_MAX)

    /// The audio socket beside the control socket: `DIR/NAME-audio.sock`.
    package static func path(forControlSocket control: String) -> String {
        DefaultPaths.descriptorSocket(forControlSocket: control)
    }

    /// Listens on `path` (replacing a stale socket file there).
    /// - Parameter identify: Which app a connecting process belongs to.
    package init(
        path: String, engine: AudioEngine, identify: @escaping @Sendable (PeerProcess) -> ProcessOwner,
        sharedFiles: SharedFiles, logger: Logger
    ) throws {
        self.path = path
        self.sharedFiles = sharedFiles
        self.identify = identify
        self.engine = engine
        self.logger = logger
        wakeup = try WakeupPipe()
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw DaemonError(.socket, path: path, String(cString: strerror(errno))) }
        guard case (var address, let length)? = unixSocketAddress(path) else {
            Glibc.close(listener)
            throw DaemonError(.socket, path: path, "path too long for a Unix socket")
        }
        // The control socket's check already proved no other daemon owns this directory.
        unlink(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length)
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(listener)
            throw DaemonError(.socket, path: path, reason)
        }
        // As the control socket: anyone who can reach the directory may connect; the token
        // and the app the peer's process belongs to decide what they get.
        chmod(path, 0o666)
        self.listener = listener
        startThread(named: "backgrounderd-audio-socket") { [self] in acceptLoop() }
    }

    /// Stops accepting and removes the socket file.
    package func stop() {
        wakeup.wake()
    }

    /// A connection accepted and not yet answered.
    private struct Waiting {
        let descriptor: Int32
        /// The connecting process, for log lines and refusals (0 when the kernel did not say).
        let pid: Int32
        /// Whose process connected, asked once as it was accepted.
        let owner: ProcessOwner
        /// Whose share of ``waitingPerClient`` it takes.
        let client: String
        let deadline: ContinuousClock.Instant
        var line: [UInt8] = []
    }

    private func acceptLoop() {
        var waiting: [Waiting] = []
        while true {
            var descriptors =
                [
                    pollfd(fd: wakeup.readDescriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                ] + waiting.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            // No timer while nobody waits: an idle daemon is not woken here.
            let timeout = waiting.map(\.deadline).min().map { deadline in
                Int32(clamping: max(0, (deadline - .now).wholeMicroseconds + 999) / 1000)
            }
            let ready = retryingInterrupted { poll(&descriptors, nfds_t(descriptors.count), timeout ?? -1) }
            guard ready >= 0 else { continue }
            if descriptors[0].revents != 0 { break }
            let now = ContinuousClock.now
            for index in waiting.indices.reversed() {
                if descriptors[index + 2].revents != 0 {
                    switch readLine(&waiting[index]) {
                    case .waiting:
                        if now >= waiting[index].deadline { Glibc.close(waiting.remove(at: index).descriptor) }
                    case .line(let line):
                        answer(waiting.remove(at: index), line: line)
                    case .unusable:
                        Glibc.close(waiting.remove(at: index).descriptor)
                    }
                } else if now >= waiting[index].deadline {
                    // Said nothing in time: dropped without an answer.
                    Glibc.close(waiting.remove(at: index).descriptor)
                }
            }
            if descriptors[1].revents != 0 { admit(into: &waiting) }
        }
        waiting.forEach { Glibc.close($0.descriptor) }
        Glibc.close(listener)
        unlink(path)
    }

    /// Accepts one connection and lets it wait for its line, unless its app already has
    /// ``waitingPerClient`` waiting.
    private func admit(into waiting: inout [Waiting]) {
        // Close-on-exec from the start: set afterwards, a process another thread spawns in
        // between would inherit the connection and keep it open after the engine closes it,
        // so the app would never hear its stream end.
        let connection = audio_socket_accept(listener)
        guard connection >= 0 else { return }
        let peer = PeerProcess.of(descriptor: connection)
        let owner = peer.map(identify) ?? .unverifiable("the kernel did not say who connected")
        let client: String
        switch owner {
        case .app(let identifier): client = identifier.rawValue
        case .unverifiable: client = "unverifiable"
        case .none: client = "uid \(peer?.uid ?? 0)"
        }
        guard waiting.count(where: { $0.client == client }) < Self.waitingPerClient else {
            // Debug only: a client that keeps reconnecting would otherwise flood the log.
            logger.debug("audio socket: \(client) already has \(Self.waitingPerClient) waiting; refused one")
            refuse(connection, "\(client) already has \(Self.waitingPerClient) connections waiting to attach")
            return
        }
        waiting.append(
            Waiting(
                descriptor: connection, pid: peer?.pid ?? 0, owner: owner, client: client,
                deadline: .now + Self.lineDeadline))
    }

    /// Answers a connection's line: the ring or the shared file, or why not.
    private func answer(_ connection: Waiting, line: String) {
        let descriptor = connection.descriptor
        guard line.hasPrefix("ATTACH ") || line.hasPrefix("OPEN ") else {
            refuse(descriptor, "expected ATTACH TOKEN or OPEN PATH")
            return
        }
        let owner: BundleID
        switch connection.owner {
        case .app(let identifier): owner = identifier
        case .none:
            refuse(descriptor, "pid \(connection.pid) is not a process of any app")
            return
        case .unverifiable(let why):
            refuse(descriptor, why)
            return
        }
        if line.hasPrefix("OPEN ") {
            return openShared(String(line.dropFirst("OPEN ".count)), for: owner, connection)
        }
        let token = String(line.dropFirst("ATTACH ".count))
        do {
            let ring = try engine.attach(token: token, owner: owner, socket: descriptor)
            // The engine owns the connection now; a failed send shows up there as a hang-up.
            try DescriptorPassing.send(Array("OK\n".utf8), descriptors: [ring], over: descriptor)
        } catch let error as AudioEngineError {
            logger.notice("audio socket: pid \(connection.pid) refused: \(error)")
            refuse(descriptor, error.description)
        } catch {
            logger.notice("audio socket: could not send the ring to pid \(connection.pid): \(error)")
        }
    }

    /// Sends an app the descriptor of a file a person shared with it, and closes the
    /// connection.
    private func openShared(_ path: String, for owner: BundleID, _ connection: Waiting) {
        let opened: (descriptor: Int32, directory: Bool)
        do throws(SharedFileRefusal) {
            opened = try sharedFiles.open(path, for: owner)
        } catch {
            logger.info("\(owner) (pid \(connection.pid)) may not open \(error)")
            refuse(connection.descriptor, error.description)
            return
        }
        defer {
            Glibc.close(opened.descriptor)
            Glibc.close(connection.descriptor)
        }
        do {
            try DescriptorPassing.send(
                Array("OK \(opened.directory ? "directory" : "file")\n".utf8), descriptors: [opened.descriptor],
                over: connection.descriptor)
        } catch {
            logger.notice("audio socket: could not send a shared file to pid \(connection.pid): \(error)")
        }
    }

    private enum LineProgress {
        case waiting
        case line(String)
        /// End of file, an error, or more than ``maximumLine`` bytes without a newline.
        case unusable
    }

    /// Reads what a connection has sent so far, a byte at a time so nothing past the line is
    /// taken from what follows on the channel.
    private func readLine(_ connection: inout Waiting) -> LineProgress {
        var byte: UInt8 = 0
        while connection.line.count < Self.maximumLine {
            let count = retryingInterrupted { recv(connection.descriptor, &byte, 1, Int32(MSG_DONTWAIT)) }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return .waiting }
            guard count == 1 else { return .unusable }
            if byte == UInt8(ascii: "\n") { return .line(String(decoding: connection.line, as: UTF8.self)) }
            connection.line.append(byte)
        }
        return .unusable
    }

    private func refuse(_ connection: Int32, _ reason: String) {
        let reply = Array("ERR \(reason)\n".utf8)
        _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        Glibc.close(connection)
    }
}
