import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
import Foundation
package import Logging
import ServiceLifecycle

/// Keeps the audio engine connected to PulseAudio, reconnecting when the server dies or
/// restarts: a few times over eight seconds, then when its socket file is created
/// (``SocketAppearance``), so an absent server costs no wakeup. The engine's events reach apps
/// through ``AudioEventFeed``.
package final class AudioService: Service, Sendable {
    private let server: String?
    private let logger: Logger
    private let state: Locked<ServiceConnection>
    /// The engine: the main loop, the connection and every stream.
    package let engine: AudioEngine
    /// Where apps fetch their rings.
    package let socket: AudioSocketServer

    /// 0.25, 0.5, 1, 2 and 4 s, then when the socket appears (every 5 s for a server with
    /// no socket file to watch, such as TCP).
    static let retries = RetrySchedule(first: .milliseconds(250), limit: .seconds(5))
    /// The socket libpulse will connect to, when it is one file.
    private let serverSocket: String?

    /// Creates the service and starts the engine's main loop and the audio socket.
    /// - Parameters:
    ///   - server: `--pulse-server`, or `nil` for libpulse's default (`PULSE_SERVER`, then the user's server).
    ///   - socketPath: The audio socket's path.
    ///   - identify: Which app a process connecting to the audio socket belongs to.
    ///   - logger: Where connection changes are logged.
    package init(
        server: String?, socketPath: String, identify: @escaping @Sendable (PeerProcess) -> ProcessOwner,
        sharedFiles: SharedFiles, logger: Logger
    ) throws {
        self.server = server
        let environment = ProcessInfo.processInfo.environment
        serverSocket = ServerSocketPath.pulse(
            server: server ?? environment["PULSE_SERVER"], runtimePath: environment["PULSE_RUNTIME_PATH"],
            runtimeDirectory: environment["XDG_RUNTIME_DIR"])
        var logger = logger
        logger[metadataKey: "pulse"] = "\(server ?? "default")"
        self.logger = logger
        state = Locked(ServiceConnection(server: server ?? "default", state: .disconnected, detail: "not started"))
        engine = try AudioEngine(logger: logger)
        socket = try AudioSocketServer(
            path: socketPath, engine: engine, identify: identify, sharedFiles: sharedFiles, logger: logger)
    }

    /// The connection state.
    package var connection: ServiceConnection { state.withLock { $0 } }

    private func set(_ newState: ServiceConnection.State, _ detail: String?) {
        state.withLock {
            $0.state = newState
            $0.detail = detail
        }
    }

    package func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { [self] in
                try await connectionLoop()
            }
        } catch is CancellationError {
            // Shutting down.
        }
        socket.stop()
        engine.disconnect()
        set(.disconnected, "stopped")
    }

    private func connectionLoop() async throws {
        var schedule = Self.retries
        while !Task.isCancelled {
            set(.connecting, nil)
            let (events, continuation) = AsyncStream<PulseEvent>.makeStream()
            do {
                try engine.connect(server: server, events: continuation)
                eventLoop: for await event in events {
                    switch event {
                    case .ready(let actualServer, let version):
                        // Name the server actually reached when none was configured.
                        let detail = server == nil ? "\(actualServer), protocol \(version)" : "protocol \(version)"
                        set(.connected, detail)
                        logger.info("connected to PulseAudio at \(actualServer), protocol \(version)")
                        schedule.reset()
                    case .failed(let reason):
                        let wasConnected = connection.state == .connected
                        set(.disconnected, reason)
                        if wasConnected {
                            logger.warning("lost PulseAudio: \(reason); reconnecting")
                        }
                        break eventLoop
                    }
                }
            } catch {
                set(.disconnected, error.reason)
            }
            engine.disconnect()
            let reason = connection.detail ?? "not connected"
            await SocketAppearance.pause(before: serverSocket, schedule: &schedule) { [self] next in
                set(.disconnected, "\(reason); \(next)")
                logger.debug("PulseAudio: \(reason); \(next)")
            }
            try Task.checkCancellation()
        }
    }
}
