import BackgrounderCore
package import BackgrounderProtocol
package import Logging
import ServiceLifecycle

/// Follows external power and network and tells the scheduler when either changes (and
/// once at start), so processing tasks wait for their conditions and are expired when one
/// breaks.
///
/// It polls, every `--conditions-interval` seconds (5 by default). Events would be quicker,
/// but each source needs its own: rtnetlink for routes and links, a udev netlink socket for
/// power supplies (sysfs `online` files do not support poll(2)). Two small file reads every
/// few seconds cost nothing measurable, work the same in a container or network namespace
/// without udev, and processing tasks run for minutes, so seconds of delay do not matter.
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

    /// Creates a monitor.
    /// - Parameters:
    ///   - power: Where power is read.
    ///   - network: Where routes and interfaces are read.
    ///   - interval: Time between readings.
    ///   - logger: Where changes and unreadable files are logged (each file once).
    ///   - onChange: Called with both conditions at start and whenever either changes.
    package init(
        power: PowerSupplyReader, network: NetworkReader = NetworkReader(), interval: Duration, logger: Logger,
        onChange: @escaping @Sendable (_ externalPower: Bool, _ network: Bool) async -> Void
    ) {
        self.power = power
        self.network = network
        self.interval = interval
        self.logger = logger
        self.onChange = onChange
    }

    /// A monitor of the power supplies in `powerSupplyDirectory` (`--power-supply-directory`)
    /// and the default route, read every `interval` (`--conditions-interval`).
    package convenience init(
        powerSupplyDirectory: String, interval: Duration, logger: Logger,
        onChange: @escaping @Sendable (_ externalPower: Bool, _ network: Bool) async -> Void
    ) {
        self.init(
            power: PowerSupplyReader(directory: powerSupplyDirectory),
            interval: interval, logger: logger, onChange: onChange)
    }

    /// The conditions as last read, for `bgctl status`; `nil` before the first reading.
    package var status: ConditionsStatus? {
        guard let reading = latest.withLock({ $0 }) else { return nil }
        return ConditionsStatus(
            externalPower: reading.power.externalPower, powerSource: reading.power.source,
            network: reading.network.network, networkSource: reading.network.source,
            intervalSeconds: interval.seconds)
    }

    /// Reads both sources now.
    package func read() -> Reading {
        Reading(power: power.read(), network: network.read())
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            var logged: Set<String> = []
            var previous: (power: Bool, network: Bool)?
            while !Task.isCancelled {
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
                    await onChange(now.power, now.network)
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }
}
