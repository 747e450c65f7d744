import BackgrounderCore

/// Who needs fixes from the receiver right now: the location service watches gpsd only
/// while someone does, so an idle receiver can power down and the daemon makes no wakeup
/// for fixes nobody hears.
package struct ReceiverDemand: Sendable, Hashable {
    /// Apps on standard updates (a one-shot `requestLocation` is one until its fix).
    package var standard = 0
    /// Apps on significant-change updates.
    package var significantChanges = 0
    /// Regions monitored, for apps and for notifications' location triggers.
    package var regions = 0

    /// The demand in `book`.
    package init(_ book: LocationBook) {
        for listener in book.listeners.values {
            if listener.subscription.standard != nil { standard += 1 }
            if listener.subscription.significantChanges { significantChanges += 1 }
        }
        regions = book.monitor.count
    }

    /// Whether anyone needs fixes.
    package var isNeeded: Bool { standard + significantChanges + regions > 0 }

    /// Why the receiver is watched, for `bgctl status`: `2 apps on standard updates, 3 regions`.
    package var reason: String {
        guard isNeeded else { return "no app needs fixes" }
        return [
            standard > 0 ? "\(standard) app\(standard == 1 ? "" : "s") on standard updates" : nil,
            significantChanges > 0
                ? "\(significantChanges) app\(significantChanges == 1 ? "" : "s") on significant changes" : nil,
            regions > 0 ? "\(regions) region\(regions == 1 ? "" : "s") monitored" : nil,
        ]
        .compactMap { $0 }.joined(separator: ", ")
    }
}

/// What follows the demand for fixes: the location service, which watches gpsd while there
/// is one.
package protocol LocationReceiver: AnyObject, Sendable {
    /// Called on the core's actor whenever the demand changes, and once when attached.
    func demandChanged(_ demand: ReceiverDemand)
}
