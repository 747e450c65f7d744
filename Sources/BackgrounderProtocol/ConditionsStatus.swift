/// The device conditions processing tasks wait for, in a ``DaemonStatus``.
public struct ConditionsStatus: Sendable, Hashable, Codable {
    /// Whether the machine runs on external power.
    public var externalPower: Bool
    /// Where that comes from: `AC (Mains) online`, `BAT0 (Battery) Discharging`, or
    /// `no power supplies in /sys/class/power_supply: counted as external power`.
    public var powerSource: String
    /// Whether a default route leaves through an interface that is up.
    public var network: Bool
    /// Where that comes from: `default route on eth0 (IPv4)` or `no default route`.
    public var networkSource: String
    /// How the daemon hears of a change (`rtnetlink, power-supply uevents`): it reads the
    /// files only then (protocol 1.11).
    public var events: String?
    /// Sources of events that could not be opened, each with why; while any is listed, the
    /// files are also read every ``intervalSeconds`` (protocol 1.11).
    public var eventsUnavailable: [String]?
    /// Seconds between two readings of the kernel's files where a source of events is
    /// unavailable (`--conditions-interval`); unused otherwise.
    public var intervalSeconds: Double

    /// Creates the conditions.
    public init(
        externalPower: Bool, powerSource: String, network: Bool, networkSource: String, events: String? = nil,
        eventsUnavailable: [String]? = nil, intervalSeconds: Double
    ) {
        self.externalPower = externalPower
        self.powerSource = powerSource
        self.network = network
        self.networkSource = networkSource
        self.events = events
        self.eventsUnavailable = eventsUnavailable
        self.intervalSeconds = intervalSeconds
    }
}
