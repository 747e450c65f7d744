import BackgroundKit

/// The notifications the daemon posts for the file's regions by itself, with no launch of the
/// app (`UNLocationNotificationTrigger`): one repeating request per region and direction, so
/// an entry and an exit read differently. The app's own monitoring, which relaunches it for
/// the alert log, goes on beside them.
enum RegionNotifications {
    /// One request to schedule.
    struct Plan: Equatable {
        var identifier: String
        var title: String
        var body: String
        var region: CircularRegion
    }

    /// The requests for these regions: `enter ID` for those that notify on entry, `exit ID`
    /// for those that notify on exit.
    static func plans(for regions: [CircularRegion]) -> [Plan] {
        var plans: [Plan] = []
        for region in regions {
            let name = region.identifier
            if region.notifyOnEntry {
                var entry = region
                entry.notifyOnExit = false
                plans.append(
                    Plan(
                        identifier: "enter " + name, title: "Arrived at \(name)", body: "You entered \(name).",
                        region: entry))
            }
            if region.notifyOnExit {
                var exit = region
                exit.notifyOnEntry = false
                plans.append(
                    Plan(identifier: "exit " + name, title: "Left \(name)", body: "You left \(name).", region: exit))
            }
        }
        return plans
    }

    /// Whether a pending request is one of these (the app adds no others, but says so).
    static func isRegionRequest(_ identifier: String) -> Bool {
        identifier.hasPrefix("enter ") || identifier.hasPrefix("exit ")
    }

    /// What to change: requests to add (new or changed; adding replaces) and to remove.
    static func changes(wanted: [Plan], pending: [(identifier: String, region: CircularRegion?)]) -> (
        add: [Plan], remove: [String]
    ) {
        let names = Set(wanted.map(\.identifier))
        let remove = pending.map(\.identifier).filter { isRegionRequest($0) && !names.contains($0) }.sorted()
        // An identical request is left alone: adding it again would restart its region's state.
        let add = wanted.filter { plan in
            !pending.contains { $0.identifier == plan.identifier && $0.region == plan.region }
        }
        return (add, remove)
    }
}
