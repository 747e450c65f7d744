import BackgrounderProtocol
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The audio socket: where an app fetches a stream's ring (a memfd, passed with
/// SCM_RIGHTS, which the NIO control socket cannot carry).
///
/// The exchange (docs/PROTOCOL.md): the app connects and sends `ATTACH TOKEN\n` with the
/// token from `AUDIO_STREAM`; the daemon checks that the process is one of the app's that opened the stream and
/// answers `OK\n` with the ring attached, or `ERR reason\n`. The connection then stays open
/// as the stream's notification channel. One thread accepts; a client that dawdles is given
/// a second before it is dropped, so a stuck client cannot hold the others up for long.
final class AudioSocketServer: Sendable {
    /// The socket's path.
    let path: String
    private let listener: Int32
    private let engine: AudioEngine
    private let logger: Logger
    private let wakeup: WakeupPipe
    private let identify: @Sendable (PeerProcess) -> ProcessOwner

    /// The audio socket beside the control socket: `DIR/NAME-audio.sock`.
    static func path(forControlSocket control: String) -> String {
        let base = control.hasSuffix(".sock") ? String(control.dropLast(5)) : control
        return base + "-audio.sock"
    }

    /// Listens on `path` (replacing a stale socket file there).
    /// - Parameter identify: Which app a connecting process belongs to.
    init(
        path: String, engine: AudioEngine, identify: @escaping @Sendable (PeerProcess) -> ProcessOwner, logger: Logger
    ) throws {
        self.path = path
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
    func stop() {
        wakeup.wake()
    }

    private func acceptLoop() {
        while wakeup.wait(for: listener, timeout: nil) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            serve(connection)
        }
        Glibc.close(listener)
        unlink(path)
    }

    private func serve(_ connection: Int32) {
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let line = readLine(connection) else {
            Glibc.close(connection)
            return
        }
        guard line.hasPrefix("ATTACH ") else {
            refuse(connection, "expected ATTACH TOKEN")
            return
        }
        guard let peer = PeerProcess.of(descriptor: connection) else {
            refuse(connection, "the kernel did not say who connected")
            return
        }
        let owner: String
        switch identify(peer) {
        case .app(let identifier): owner = identifier
        case .none:
            refuse(connection, "pid \(peer.pid) is not a process of any app")
            return
        case .unverifiable(let why):
            refuse(connection, why)
            return
        }
        let token = String(line.dropFirst("ATTACH ".count))
        do {
            let ring = try engine.attach(token: token, owner: owner, socket: connection)
            // The engine owns the connection now; a failed send shows up there as a hang-up.
            try DescriptorPassing.send(Array("OK\n".utf8), descriptors: [ring], over: connection)
        } catch let error as AudioEngineError {
            logger.notice("audio socket: pid \(peer.pid) refused: \(error)")
            refuse(connection, error.description)
        } catch {
            logger.notice("audio socket: could not send the ring to pid \(peer.pid): \(error)")
        }
    }

    /// One line of at most 256 bytes within a second, or `nil` on timeout, end of file or
    /// overlong input.
    private func readLine(_ connection: Int32) -> String? {
        let deadline = ContinuousClock.now + .seconds(1)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 256 && ContinuousClock.now < deadline {
            let count = retryingInterrupted { read(connection, &byte, 1) }
            guard count == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }

    private func refuse(_ connection: Int32, _ reason: String) {
        let reply = Array("ERR \(reason)\n".utf8)
        _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        Glibc.close(connection)
    }
}
