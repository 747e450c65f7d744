public import BackgrounderCore

/// `SIMULATE_LOCATION`: a person (a developer without a receiver) gives the device positions,
/// as Xcode's simulated locations do. Each fix goes where gpsd's would: the standard,
/// significant-change and region filters, and every app's queue. `bgctl simulate location
/// --at LAT,LON[,ALT]` sends one; `bgctl simulate route FILE` a recorded walk, paced.
public struct SimulatedLocation: Sendable, Hashable, Codable {
    /// The fixes, oldest first; at most ``maximumFixes``.
    public var fixes: [Location]

    /// The most fixes one request may carry.
    public static let maximumFixes = 1000

    /// Creates a request.
    public init(fixes: [Location]) {
        self.fixes = fixes
    }

    /// Why the request cannot be taken, naming the fix and the field, or `nil`.
    public var problem: String? {
        guard !fixes.isEmpty else { return "fixes is empty: give at least one" }
        guard fixes.count <= Self.maximumFixes else {
            return "fixes holds \(fixes.count); at most \(Self.maximumFixes) a request"
        }
        for (index, fix) in fixes.enumerated() {
            let place = "fixes[\(index)]"
            guard fix.coordinate.isValid else {
                return
                    "\(place): latitude \(fix.coordinate.latitude), longitude \(fix.coordinate.longitude) is no place on Earth"
            }
            guard fix.timestamp.isFinite, fix.timestamp > 0 else {
                return "\(place): timestamp \(fix.timestamp) is no time"
            }
            if let altitude = fix.altitude, !altitude.isFinite || abs(altitude) > 100_000 {
                return "\(place): altitude \(altitude) m is not one a receiver reports"
            }
            if index > 0, fix.timestamp < fixes[index - 1].timestamp {
                return "\(place): timestamp \(fix.timestamp) is older than the fix before it"
            }
        }
        return nil
    }
}
