import BackgrounderProtocol
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the daemon's connection to PulseAudio, reconnecting with backoff when the server
/// dies or restarts; the audio engine builds its streams on this connection.
final class AudioService: Service, Sendable {
    private let server: String?
    private let logger: Logger
    private let state: Mutex<ServiceConnection>

    static let maximumBackoff: Duration = .seconds(5)

    /// Creates the service.
    /// - Parameters:
    ///   - server: `--pulse-server`, or `nil` for libpulse's default (`PULSE_SERVER`, then the user's server).
    ///   - logger: Where connection changes are logged.
    init(server: String?, logger: Logger) {
        self.server = server
        var logger = logger
        logger[metadataKey: "pulse"] = "\(server ?? "default")"
        self.logger = logger
        state = Mutex(ServiceConnection(server: server ?? "default", state: .disconnected, detail: "not started"))
    }

    /// The connection state.
    var connection: ServiceConnection { state.withLock { $0 } }

    private func set(_ newState: ServiceConnection.State, _ detail: String?) {
        state.withLock {
            $0.state = newState
            $0.detail = detail
        }
    }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { [self] in
                try await connectionLoop()
            }
        } catch is CancellationError {
            // Shutting down.
        }
        set(.disconnected, "stopped")
    }

    private func connectionLoop() async throws {
        var backoff: Duration = .milliseconds(250)
        while !Task.isCancelled {
            set(.connecting, nil)
            let (events, continuation) = AsyncStream<PulseEvent>.makeStream()
            do {
                let context = try PulseContext(server: server, name: "backgrounderd", events: continuation)
                eventLoop: for await event in events {
                    switch event {
                    case .ready(let actualServer, let version):
                        // Name the server actually reached when none was configured.
                        let detail = server == nil ? "\(actualServer), protocol \(version)" : "protocol \(version)"
                        set(.connected, detail)
                        logger.info("connected to PulseAudio at \(actualServer), protocol \(version)")
                        backoff = .milliseconds(250)
                    case .failed(let reason):
                        let wasConnected = connection.state == .connected
                        set(.disconnected, reason)
                        if wasConnected {
                            logger.warning("lost PulseAudio: \(reason); reconnecting")
                        } else {
                            logger.debug("PulseAudio: \(reason); retrying in \(backoff)")
                        }
                        break eventLoop
                    }
                }
                withExtendedLifetime(context) {}
            } catch {
                set(.disconnected, error.reason)
            }
            try await Task.sleep(for: backoff)
            backoff = min(backoff * 2, Self.maximumBackoff)
        }
    }
}
