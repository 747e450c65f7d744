package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Foundation
package import Logging
import ServiceLifecycle

/// Follows gpsd: reads TPV reports on a thread of its own, keeps the latest fix, hands each
/// new fix to the apps (``AppManager/locationFix(_:)``), and reconnects with backoff whenever
/// gpsd goes away, restarts (which gpxlogger does not) or stalls (``answerTimeout``).
///
/// It watches gpsd only while an app needs fixes (``ReceiverDemand``): with no subscription
/// and no region, it holds no connection, so gpsd can power the receiver down, and its thread
/// sleeps in poll(2) with no timeout until the demand changes.
package final class LocationService: Service, LocationReceiver, Sendable {
    /// What the service knows right now.
    package struct Snapshot: Sendable {
        package var connection: ServiceConnection
        package var lastFix: Location?
        package var lastFixReceived: ContinuousClock.Instant?
    }

    package let host: String
    package let port: String
    private let logger: Logger
    private let state: Locked<Snapshot>
    private let wakeup: WakeupPipe
    /// Woken when ``demandChanged(_:)`` changes whether fixes are needed; drained by the thread.
    private let demandSignal: WakeupPipe
    private let demand = Locked(ReceiverDemand?.none)
    private let apps: any AppCore
    private let capability: LocationCapability
    private let events: (stream: AsyncStream<Event>, continuation: AsyncStream<Event>.Continuation)

    /// What the reader thread tells the apps, in order.
    private enum Event {
        case fix(Location)
        case connection(available: Bool, detail: String?)
    }

    /// The longest wait between reconnection attempts.
    package static let maximumBackoff: Duration = .seconds(5)

    /// How long gpsd may take to answer what it owes: the WATCH reply after connecting, or a
    /// probe after its reports stopped. gpsd answers both at once; longer means it is stuck.
    package static let answerTimeout: Duration = .seconds(10)

    /// Creates the service.
    /// - Parameters:
    ///   - address: `HOST:PORT` of gpsd.
    ///   - capability: Who hears fixes and connection changes.
    ///   - apps: The core the capability acts on.
    ///   - logger: Where connection changes are logged.
    /// - Throws: ``DaemonError`` when the address has no port.
    package init(address: String, capability: LocationCapability, apps: any AppCore, logger: Logger) throws {
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
        state = Locked(
            Snapshot(connection: ServiceConnection(server: address, state: .disconnected, detail: "not started")))
        wakeup = try WakeupPipe()
        demandSignal = try WakeupPipe()
        self.apps = apps
        self.capability = capability
        // Fixes arrive about once a second; nothing is dropped if the apps' actor is busy.
        events = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// The connection state and the last fix.
    package var snapshot: Snapshot { state.withLock { $0 } }

    package func run() async throws {
        await capability.attach(self)
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await event in events.stream {
                    switch event {
                    case .fix(let fix):
                        await capability.fix(fix, in: apps)
                    case .connection(let available, let detail):
                        await capability.serviceChanged(available: available, detail: detail, in: apps)
                    }
                }
            }
            await wakeup.runThreadUntilShutdown(named: "gpsd-reader") { [self] in readLoop() }
            events.continuation.finish()
        }
    }

    /// `SIMULATE_LOCATION`: fixes a person gives, handed to the apps as gpsd's are (the same
    /// filters, queue and order), and kept as the last fix for `bgctl status`.
    package func simulate(_ fixes: [Location]) {
        guard let last = fixes.last else { return }
        update {
            $0.lastFix = last
            $0.lastFixReceived = .now
        }
        for fix in fixes { events.continuation.yield(.fix(fix)) }
    }

    private var shouldStop: Bool { wakeup.isWoken }

    package func demandChanged(_ demand: ReceiverDemand) {
        let changed = self.demand.withLock { current in
            defer { current = demand }
            return current?.isNeeded != demand.isNeeded
        }
        if changed { demandSignal.wake() }
    }

    /// Who needs fixes, as last told; `nil` before the capability attached.
    private var needed: ReceiverDemand? {
        demand.withLock { $0.flatMap { $0.isNeeded ? $0 : nil } }
    }

    /// What ended a wait on the reader thread.
    private enum Wake {
        case shutdown
        /// Whether fixes are needed changed (the signal is drained).
        case demand
        case readable
        case timeout
    }

    /// Waits for gpsd's socket (when given), a change of demand, shutdown, or `timeout`.
    private func wait(for descriptor: Int32?, timeout: Duration?) -> Wake {
        var descriptors = [
            pollfd(fd: wakeup.readDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: demandSignal.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        if let descriptor { descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map { Int32(clamping: $0.wholeMicroseconds / 1000) } ?? -1
        let ready = retryingInterrupted { poll(&descriptors, nfds_t(descriptors.count), milliseconds) }
        if descriptors[0].revents != 0 { return .shutdown }
        if descriptors[1].revents != 0 {
            demandSignal.drain()
            return .demand
        }
        return ready > 0 ? .readable : .timeout
    }

    /// Waits, with no timer, until fixes are needed; `false` at shutdown.
    private func waitForDemand() -> Bool {
        while needed == nil {
            update {
                $0.connection = ServiceConnection(
                    server: $0.connection.server, state: .disconnected, detail: "not watched: no app needs fixes")
            }
            if wait(for: nil, timeout: nil) == .shutdown { return false }
        }
        return true
    }

    private func update(_ change: (inout Snapshot) -> Void) {
        state.withLock { change(&$0) }
    }

    /// Runs on the reader thread until shutdown.
    private func readLoop() {
        var backoff: Duration = .milliseconds(250)
        var deduplicator = FixDeduplicator()
        // Why the last attempt failed, shown while the next one waits for gpsd: a server that
        // accepts and says nothing keeps the daemon "connecting" for most of each cycle, and a
        // person reading `bgctl status` then should still see why it is not connected.
        var lastFailure: String?
        while !shouldStop {
            guard waitForDemand() else { break }
            update { $0.connection.state = .connecting }
            let connection: GPSDConnection
            do {
                connection = try GPSDConnection(host: host, port: port)
            } catch {
                update {
                    $0.connection = ServiceConnection(
                        server: $0.connection.server, state: .disconnected, detail: error.reason)
                }
                lastFailure = error.reason
                logger.debug("\(error.reason); retrying in \(backoff)")
                events.continuation.yield(.connection(available: false, detail: error.reason))
                _ = wait(for: nil, timeout: backoff)
                backoff = min(backoff * 2, Self.maximumBackoff)
                continue
            }
            let waiting = "waiting for gpsd to answer WATCH" + (lastFailure.map { "; the last attempt: \($0)" } ?? "")
            update {
                $0.connection = ServiceConnection(server: $0.connection.server, state: .connecting, detail: waiting)
            }
            deduplicator.reset()
            do {
                try follow(connection, &deduplicator, backoff: &backoff)
                if !shouldStop {
                    logger.info("released gpsd: no app needs fixes")
                }
            } catch {
                update {
                    $0.connection = ServiceConnection(
                        server: $0.connection.server, state: .disconnected, detail: error.reason)
                }
                lastFailure = error.reason
                logger.warning("\(error.reason); reconnecting in \(backoff)")
                events.continuation.yield(.connection(available: false, detail: error.reason))
                // Not at once: a server that accepts and then closes or says nothing must not
                // be reconnected to in a tight loop.
                _ = wait(for: nil, timeout: backoff)
                backoff = min(backoff * 2, Self.maximumBackoff)
            }
        }
        update {
            $0.connection = ServiceConnection(server: $0.connection.server, state: .disconnected, detail: "stopped")
        }
    }

    /// What the reader waits for from gpsd, and so whether it has a deadline.
    private enum Awaiting {
        /// The reply to WATCH, which gpsd sends at once: until then the server has not shown
        /// that it is gpsd, or that it is following.
        case watchReply
        /// More reports: they were flowing (a receiver reports at least once a second).
        case reports
        /// The answer to a probe sent when reports stopped.
        case probeReply
        /// Nothing: gpsd has no receiver sending, and is not asked anything (no timer).
        case nothing
    }

    /// Follows one connection: returns at shutdown or when no app needs fixes any more (the
    /// connection is then closed, which ends the WATCH), throws when gpsd closes it, fails, or
    /// owes an answer for ``answerTimeout`` (a stall: it accepted and says nothing, or stopped
    /// answering mid-stream).
    ///
    /// Sleeps in poll(2) until gpsd sends something or shutdown wakes it. A deadline is set
    /// only while an answer is owed: the WATCH reply after connecting, and, once reports
    /// flowed and then stopped, the answer to one `?VERSION;` probe. A gpsd that answers it
    /// but has nothing to report (no receiver) is not asked again until reports flow, so an
    /// idle gpsd costs no timer wakeups.
    private func follow(
        _ connection: GPSDConnection, _ deduplicator: inout FixDeduplicator, backoff: inout Duration
    ) throws(GPSDError) {
        var awaiting = Awaiting.watchReply
        var deadline = ContinuousClock.now + Self.answerTimeout
        while !shouldStop {
            if !connection.hasBufferedReport {
                let timeout = awaiting == .nothing ? nil : max(.zero, deadline - .now)
                switch wait(for: connection.descriptor, timeout: timeout) {
                case .shutdown: return
                case .demand:
                    if needed == nil { return }
                    continue
                case .readable: break
                case .timeout:
                    guard awaiting != .nothing, ContinuousClock.now >= deadline else { continue }
                    switch awaiting {
                    case .watchReply:
                        throw GPSDError(
                            reason:
                                "gpsd at \(host):\(port) accepted the connection but did not answer WATCH within \(Self.answerTimeout)"
                        )
                    case .reports:
                        try connection.probe()
                        awaiting = .probeReply
                        deadline = .now + Self.answerTimeout
                        continue
                    case .probeReply, .nothing:
                        throw GPSDError(
                            reason:
                                "gpsd at \(host):\(port) stopped answering: its reports stopped and it did not answer ?VERSION within \(Self.answerTimeout)"
                        )
                    }
                }
            }
            // gpsd 3.22 sends a TPV per NMEA sentence: several per fix, one fix time.
            let report = try connection.read()
            if awaiting == .watchReply {
                guard connection.isWatching else { continue }
                update {
                    $0.connection = ServiceConnection(server: $0.connection.server, state: .connected, detail: nil)
                }
                logger.info("connected to gpsd")
                events.continuation.yield(.connection(available: true, detail: nil))
                backoff = .milliseconds(250)
                awaiting = .nothing
            } else if connection.lastLineWasVersion {
                // The probe's answer (or a banner): gpsd is there, with nothing to report.
                awaiting = .nothing
            } else {
                awaiting = .reports
                deadline = .now + Self.answerTimeout
            }
            if case .fix(let location) = report, deduplicator.accept(location) {
                let now = ContinuousClock.now
                update {
                    $0.lastFix = location
                    $0.lastFixReceived = now
                }
                events.continuation.yield(.fix(location))
            }
        }
    }
}
