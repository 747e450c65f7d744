import BackgrounderCore
import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One stream's link to the daemon: the shared ring and the socket that carries wake-ups
/// both ways (a byte means "I moved data" or "there is room/data for you").
///
/// A producer or consumer that finds the ring full (or empty) sets its waiting flag, looks
/// again, and then awaits ``waitForPeer()``; the daemon sends a byte when it has moved data
/// past the low-water mark. The socket closing means the daemon dropped the stream.
final class AudioStreamChannel: Sendable {
    let stream: Int
    let ring: AudioRing
    let format: AudioFormat
    private let socket: Int32
    private let wakeups = Wakeups()

    /// What the reader thread and the waiting task share; a class of its own so the thread
    /// does not keep the channel alive.
    private final class Wakeups: Sendable {
        struct State {
            var waiter: CheckedContinuation<Void, any Error>?
            var woken = false
            var closed = false
            /// The reader thread closed the socket: its number may belong to another
            /// descriptor now, so it must not be touched again.
            var socketClosed = false
        }
        let state = Locked(State())
    }

    /// Opens a stream with the daemon and attaches to its ring.
    static func open(_ request: AudioStreamRequest) throws -> AudioStreamChannel {
        guard let connection = Application.connectionForAudio else {
            throw AudioError(.notConnected, "audio needs an app launched by backgrounderd (Application.main)")
        }
        let reply = try connection.request(.openAudioStream(request))
        switch reply.body {
        case .audioStream(let grant):
            return try AudioStreamChannel(grant: grant, format: request.format)
        case .error(let error):
            throw AudioError(error)
        default:
            throw AudioError(.unspecified, "unexpected \(reply.className) to AUDIO_STREAM_OPEN")
        }
    }

    private init(grant: AudioStreamGrant, format: AudioFormat) throws {
        let socket = try DaemonSocket.connect(to: grant.socket)
        do {
            let line = Array("ATTACH \(grant.token)\n".utf8)
            try line.withUnsafeBytes { raw in
                guard send(socket, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) == raw.count else {
                    throw AudioError(
                        .mediaServicesFailed,
                        "cannot send to the audio socket \(grant.socket): \(String(cString: strerror(errno)))")
                }
            }
            let (bytes, descriptors) = try DescriptorPassing.receive(
                over: socket, maximumBytes: 256, maximumDescriptors: 1)
            let answer = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard answer == "OK", let descriptor = descriptors.first else {
                descriptors.forEach { _ = close($0) }
                throw AudioError(
                    .unspecified, "the daemon refused the stream's ring: \(answer.isEmpty ? "no answer" : answer)")
            }
            ring = try AudioRing(mapping: descriptor)
        } catch {
            close(socket)
            throw error
        }
        self.socket = socket
        stream = grant.stream
        self.format = format
        // A thread per stream blocks on the socket: a stream is long-lived and an app has one
        // or two, and a blocking read needs no event loop in the app.
        startThread(named: "audio-stream-\(grant.stream)") { [socket, wakeups, stream] in
            Self.readWakeups(socket: socket, wakeups: wakeups, stream: stream)
        }
    }

    deinit {
        // Wakes the reader thread with end of file; it closes the socket. Not once the thread
        // closed it (the daemon hung up): the number may be another descriptor's by now, such
        // as the stream a restarted daemon just granted, which this would hang up.
        let socket = self.socket
        wakeups.state.withLock { state in
            if !state.socketClosed { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private static func readWakeups(socket: Int32, wakeups: Wakeups, stream: Int) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while true {
            let count = retryingInterrupted { read(socket, &scratch, scratch.count) }
            let hungUp = count <= 0
            let waiter = wakeups.state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if hungUp { state.closed = true }
                guard let waiter = state.waiter else {
                    state.woken = true
                    return nil
                }
                state.waiter = nil
                return waiter
            }
            if hungUp {
                waiter?.resume(throwing: AudioError(.streamClosed, "the daemon closed audio stream \(stream)"))
                // Under the lock deinit takes, so it never shuts down a reused number.
                wakeups.state.withLock { state in
                    state.socketClosed = true
                    close(socket)
                }
                return
            }
            waiter?.resume()
        }
    }

    /// Waits for the daemon's next wake-up (or returns at once if one already came).
    /// - Throws: `CancellationError` when the task is cancelled while waiting, so a writer
    ///   blocked on a full, paused stream can be stopped (a seek, a skip).
    func waitForPeer() async throws {
        let wakeups = self.wakeups
        let stream = self.stream
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = wakeups.state.withLock { state in
                    if state.closed {
                        return .failure(AudioError(.streamClosed, "the daemon closed audio stream \(stream)"))
                    }
                    if state.woken {
                        state.woken = false
                        return .success(())
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let waiter = wakeups.state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Tells the daemon data moved (it asked to be told).
    func notifyPeer() {
        var byte: UInt8 = 1
        let socket = self.socket
        // Not on a socket the reader thread closed: its number may be another stream's now.
        wakeups.state.withLock { state in
            guard !state.socketClosed else { return }
            _ = send(socket, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
    }

    /// Sends a control action and waits for the answer.
    func control(_ action: AudioStreamControl.Action) throws {
        guard let connection = Application.connectionForAudio else { throw AudioError(.notConnected, "not connected") }
        let reply = try connection.request(.audioStreamControl(AudioStreamControl(stream: stream, action: action)))
        if case .error(let error) = reply.body { throw AudioError(error, request: action.rawValue) }
    }
}

extension AudioStreamChannel {
    /// ``control(_:)`` off the caller's thread, for actions that take a while (a drain
    /// waits for everything buffered to play).
    func controlInBackground(_ action: AudioStreamControl.Action) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            startThread(named: "audio-stream-\(stream)-\(action.rawValue)") { [self] in
                continuation.resume(with: Result { try control(action) })
            }
        }
    }
}
