import BackgroundKit

/// What to tell the daemon so it monitors exactly the regions in the file.
struct RegionSync: Equatable {
    /// Regions to start monitoring: new ones, and changed ones (starting replaces them).
    var start: [CircularRegion]
    /// Regions the daemon monitors that the file no longer has.
    var stop: [CircularRegion]
    /// Regions the daemon already monitors as the file says.
    var unchanged: Int

    /// Compares the file with what the daemon monitors.
    /// - Parameters:
    ///   - wanted: The file's regions.
    ///   - monitored: ``LocationManager/monitoredRegions``.
    init(wanted: [CircularRegion], monitored: Set<CircularRegion>) {
        // A region started again would have its inside/outside state forgotten and could
        // alert again for an entry already reported, so an identical one is left alone.
        start = wanted.filter { !monitored.contains($0) }
        let identifiers = Set(wanted.map(\.identifier))
        stop = monitored.filter { !identifiers.contains($0.identifier) }.sorted { $0.identifier < $1.identifier }
        unchanged = wanted.count - start.count
    }

    /// Whether anything changes.
    var isEmpty: Bool { start.isEmpty && stop.isEmpty }
}
