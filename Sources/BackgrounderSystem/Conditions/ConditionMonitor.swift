import BackgrounderCore
package import BackgrounderProtocol
package import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Follows external power and network and tells the scheduler when either changes (and
/// once at start), so processing tasks wait for their conditions and are expired when one
/// breaks.
///
/// It reads the kernel's files when the kernel says something changed (``ConditionEvents``:
/// rtnetlink, power-supply uevents, or inotify on a test tree), on a thread that sleeps in
/// poll(2) with no timeout otherwise, so a quiet machine costs no wakeup. Only when a source
/// cannot be opened does it also read every `--conditions-interval` seconds, and says so.
package final class ConditionMonitor: Service, Sendable {
    /// Both readings together.
    package struct Reading: Sendable, Hashable {
        package var power: PowerReading
        package var network: NetworkReading
    }

    private let power: PowerSupplyReader
    private let network: NetworkReader
    private let interval: Duration
    private let logger: Logger
    private let onChange: @Sendable (_ externalPower: Bool, _ network: Bool) async -> Void
    private let latest = Locked<Reading?>(nil)
    /// How changes are followed, once the thread has opened its sources.
    private let following = Locked<(events: String, unavailable: [String])?>(nil)
    private let shutdown: WakeupPipe

    /// Creates a monitor.
    /// - Parameters:
    ///   - power: Where power is read.
    ///   - network: Where routes and interfaces are read.
    ///   - interval: Time between readings when a source of events cannot be opened.
    ///   - logger: Where changes and unreadable files are logged (each file once).
    ///   - onChange: Called with both conditions at start and whenever either changes.
    package init(
        power: PowerSupplyReader, network: NetworkReader = NetworkReader(), interval: Duration, logger: Logger,
        onChange: @escaping @Sendable (_ externalPower: Bool, _ network: Bool) async -> Void
    ) throws {
        self.power = power
        self.network = network
        self.interval = interval
        self.logger = logger
        self.onChange = onChange
        shutdown = try WakeupPipe()
    }

    /// A monitor of the power supplies in `powerSupplyDirectory` (`--power-supply-directory`)
    /// and the default route, read when either changes (`interval`, `--conditions-interval`,
    /// only without events).
    package convenience init(
        powerSupplyDirectory: String, interval: Duration, logger: Logger,
        onChange: @escaping @Sendable (_ externalPower: Bool, _ network: Bool) async -> Void
    ) throws {
        try self.init(
            power: PowerSupplyReader(directory: powerSupplyDirectory),
            interval: interval, logger: logger, onChange: onChange)
    }

    /// The conditions as last read, for `bgctl status`; `nil` before the first reading.
    package var status: ConditionsStatus? {
        guard let reading = latest.withLock({ $0 }), let following = following.withLock({ $0 }) else { return nil }
        return ConditionsStatus(
            externalPower: reading.power.externalPower, powerSource: reading.power.source,
            network: reading.network.network, networkSource: reading.network.source,
            events: following.events.isEmpty ? nil : following.events,
            eventsUnavailable: following.unavailable.isEmpty ? nil : following.unavailable,
            intervalSeconds: interval.seconds)
    }

    /// Reads both sources now.
    package func read() -> Reading {
        Reading(power: power.read(), network: network.read())
    }

    package func run() async throws {
        let (changes, continuation) = AsyncStream.makeStream(of: (power: Bool, network: Bool).self)
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await change in changes { await onChange(change.power, change.network) }
            }
            // A task cancelled without a graceful shutdown (a test's) ends the thread too.
            await withTaskCancellationHandler {
                await shutdown.runThreadUntilShutdown(named: "conditions") { [self] in
                    follow { continuation.yield($0) }
                }
            } onCancel: { [shutdown] in
                shutdown.wake()
            }
            continuation.finish()
        }
    }

    /// Runs on the monitor's thread until shutdown: reads, then waits for an event.
    private func follow(_ report: (_ change: (power: Bool, network: Bool)) -> Void) {
        let events = ConditionEvents(powerSupplyDirectory: power.directory)
        let polled = !events.unavailable.isEmpty
        if polled {
            logger.warning(
                "device conditions: \(events.unavailable.joined(separator: "; ")); reading them every \(interval) as well"
            )
        }
        following.withLock { $0 = (events.summary, events.unavailable) }
        var logged: Set<String> = []
        var previous: (power: Bool, network: Bool)?
        var changed = true
        while true {
            if changed {
                let reading = read()
                for problem in reading.power.problems + reading.network.problems where logged.insert(problem).inserted {
                    logger.warning("device conditions: \(problem)")
                }
                latest.withLock { $0 = reading }
                let now = (power: reading.power.externalPower, network: reading.network.network)
                if previous?.power != now.power || previous?.network != now.network {
                    logger.notice(
                        "external power: \(now.power ? "yes" : "no") (\(reading.power.source)); network: \(now.network ? "yes" : "no") (\(reading.network.source))"
                    )
                    previous = now
                    report(now)
                }
            }
            var descriptors = [pollfd(fd: shutdown.readDescriptor, events: Int16(POLLIN), revents: 0)]
            descriptors += events.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let timeout = polled ? Int32(clamping: max(1, interval.wholeMicroseconds / 1000)) : -1
            let ready = retryingInterrupted { poll(&descriptors, nfds_t(descriptors.count), timeout) }
            if descriptors[0].revents != 0 { return }
            // A timeout (polling) reads; otherwise only a relevant event does.
            changed = ready == 0
            for entry in descriptors.dropFirst() where entry.revents != 0 {
                changed = events.drain(entry.fd) || changed
            }
        }
    }
}
