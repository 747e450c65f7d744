package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: notifications scheduled, shown, and waiting for the app in front to say how
/// it wants one presented (`willPresent`, at most a second).
extension NotificationCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let pending = pending.values.reduce(0) { $0 + $1.count }
        let delivered = delivered.values.reduce(0) { $0 + $1.count }
        let asking = asking.values.reduce(0) { $0 + $1.count }
        return CapabilityStatus(
            name: "notifications",
            summary: "\(pending) scheduled, \(delivered) delivered, \(asking) waiting for the app in front",
            counts: ["pending": pending, "delivered": delivered, "waitingForApp": asking])
    }
}
