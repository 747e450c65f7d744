public import Foundation

/// The device as task requests see it: power, network, and how long it has been idle.
public struct DeviceConditions: Sendable, Hashable, Codable {
    /// On external power.
    public var externalPower: Bool
    /// A network is reachable (a default route on an interface that is up).
    public var network: Bool
    /// Since when the device has been idle (screen locked, no app in front), or `nil` if it is in use.
    public var idleSince: Date?

    /// Conditions.
    public init(externalPower: Bool, network: Bool, idleSince: Date?) {
        self.externalPower = externalPower
        self.network = network
        self.idleSince = idleSince
    }
}
