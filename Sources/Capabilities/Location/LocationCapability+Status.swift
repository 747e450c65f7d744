package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: who follows the location and how, and whether fixes come in.
extension LocationCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let listeners = book.listeners.values
        let standard = listeners.filter { $0.standard != nil }.count
        let significant = listeners.filter { $0.significant != nil }.count
        let regions = book.monitor.count
        var summary =
            "\(standard) app(s) on standard updates, \(significant) on significant changes; "
            + "\(regions) region(s) monitored for \(book.monitor.ownerCount) app(s); "
        let demand = ReceiverDemand(book)
        if !demand.isNeeded {
            summary += "receiver not watched (no app needs fixes)"
        } else {
            summary +=
                book.available
                ? "receiver watched for \(demand.reason)"
                : "receiver wanted for \(demand.reason), but no fixes (\(book.unavailableDetail ?? "unavailable"))"
        }
        return CapabilityStatus(
            name: "location", summary: summary,
            counts: ["standard": standard, "significantChange": significant, "regions": regions])
    }
}
