public import Foundation

/// One reason a piece of scheduled work does not start now; `bgctl tasks` lists them.
///
/// The rules return every reason that holds, not just the first, so a person sees all that
/// must change. Dates are when the reason ends by itself; the others end when a condition
/// changes.
public enum SchedulingWait: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A task request's `earliestBeginDate` is still ahead.
    case earliestBeginDate(Date)
    /// A processing task requires external power and the device is on battery.
    case externalPower
    /// A processing task requires network connectivity and there is none.
    case network
    /// A processing task waits for the device to be idle for the policy's time.
    case idle
    /// The app's daily fetch budget is spent until this moment.
    case budget(until: Date)
    /// The app's fetch interval since its last fetch (doubled after each empty result, to the
    /// policy's cap) ends at this moment.
    case backoff(until: Date)
    /// Background fetch is off (`.never`).
    case never

    /// A short name, without the date (`bgctl` shows when the work may run beside it).
    public var description: String {
        switch self {
        case .earliestBeginDate: "earliest begin date"
        case .externalPower: "external power"
        case .network: "network"
        case .idle: "idle"
        case .budget: "daily fetch budget"
        case .backoff: "fetch interval"
        case .never: "fetch off"
        }
    }

    /// When the wait ends by itself, or `nil` when a condition must change.
    public var until: Date? {
        switch self {
        case .earliestBeginDate(let date), .budget(let date), .backoff(let date): date
        case .externalPower, .network, .idle, .never: nil
        }
    }
}
