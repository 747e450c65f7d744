import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Follows gpsd: reads TPV reports on a thread of its own, keeps the latest fix, hands each
/// new fix to the apps (``AppManager/locationFix(_:)``), and reconnects with backoff whenever
/// gpsd goes away or restarts (which gpxlogger does not).
final class LocationService: Service, Sendable {
    /// What the service knows right now.
    struct Snapshot: Sendable {
        var connection: ServiceConnection
        var lastFix: Location?
        var lastFixReceived: ContinuousClock.Instant?
    }

    let host: String
    let port: String
    private let logger: Logger
    private let state: Mutex<Snapshot>
    private let wakeup: WakeupPipe
    private let apps: AppManager
    private let events: (stream: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation)

    /// What the reader thread tells the apps, in order.
    private enum Event {
        case fix(Location)
        case connection(available: Bool, detail: String?)
    }

    /// The longest wait between reconnection attempts.
    static let maximumBackoff: Duration = .seconds(5)

    /// Creates the service.
    /// - Parameters:
    ///   - address: `HOST:PORT` of gpsd.
    ///   - apps: Who hears fixes and connection changes (`nil` to only follow gpsd).
    ///   - logger: Where connection changes are logged.
    /// - Throws: ``DaemonError`` when the address has no port.
    init(address: String, apps: AppManager, logger: Logger) throws {
        guard let colon = address.lastIndex(of: ":"), colon != address.startIndex,
            !address[address.index(after: colon)...].isEmpty
        else {
            throw DaemonError(.configuration, path: "--gpsd", "'\(address)' is not HOST:PORT")
        }
        host = String(address[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        port = String(address[address.index(after: colon)...])
        var logger = logger
        logger[metadataKey: "gpsd"] = "\(address)"
        self.logger = logger
        state = Mutex(
            Snapshot(connection: ServiceConnection(server: address, state: .disconnected, detail: "not started")))
        wakeup = try WakeupPipe()
        self.apps = apps
        // Fixes arrive about once a second; nothing is dropped if the apps' actor is busy.
        events = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// The connection state and the last fix.
    var snapshot: Snapshot { state.withLock { $0 } }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await event in events.stream {
                    switch event {
                    case .fix(let fix):
                        try? await apps.with(LocationCapability.self) { $0.fix(fix, in: $1) }
                    case .connection(let available, let detail):
                        try? await apps.with(LocationCapability.self) {
                            $0.serviceChanged(available: available, detail: detail, in: $1)
                        }
                    }
                }
            }
            await wakeup.runThreadUntilShutdown(named: "gpsd-reader") { [self] in readLoop() }
            events.continuation.finish()
        }
    }

    private var shouldStop: Bool { wakeup.isWoken }

    private func update(_ change: (inout Snapshot) -> Void) {
        state.withLock { change(&$0) }
    }

    /// Runs on the reader thread until shutdown.
    private func readLoop() {
        var backoff: Duration = .milliseconds(250)
        var deduplicator = FixDeduplicator()
        while !shouldStop {
            update { $0.connection.state = .connecting }
            let connection: GPSDConnection
            do {
                connection = try GPSDConnection(host: host, port: port)
            } catch {
                update {
                    $0.connection = ServiceConnection(
                        server: $0.connection.server, state: .disconnected, detail: error.reason)
                }
                logger.debug("\(error.reason); retrying in \(backoff)")
                _ = wakeup.wait(for: nil, timeout: backoff)
                backoff = min(backoff * 2, Self.maximumBackoff)
                continue
            }
            update { $0.connection = ServiceConnection(server: $0.connection.server, state: .connected, detail: nil) }
            logger.info("connected to gpsd")
            events.continuation.yield(.connection(available: true, detail: nil))
            deduplicator.reset()
            backoff = .milliseconds(250)
            do {
                // Sleep in poll(2) until gpsd sends something or shutdown wakes us: no
                // timer wakeups while nothing happens.
                while !shouldStop
                    && (connection.hasBufferedReport || wakeup.wait(for: connection.descriptor, timeout: nil))
                {
                    // gpsd 3.22 sends a TPV per NMEA sentence: several per fix, one fix time.
                    if case .fix(let location) = try connection.read(), deduplicator.accept(location) {
                        let now = ContinuousClock.now
                        update {
                            $0.lastFix = location
                            $0.lastFixReceived = now
                        }
                        events.continuation.yield(.fix(location))
                    }
                }
            } catch {
                update {
                    $0.connection = ServiceConnection(
                        server: $0.connection.server, state: .disconnected, detail: error.reason)
                }
                logger.warning("\(error.reason); reconnecting")
                events.continuation.yield(.connection(available: false, detail: error.reason))
            }
        }
        update {
            $0.connection = ServiceConnection(server: $0.connection.server, state: .disconnected, detail: "stopped")
        }
    }
}
