/// CLLocationManager's region monitoring for every app at once: circular geofences, entered and
/// left with hysteresis in space and time, checked against each fix at a cost that does not grow
/// with the number of regions far from the receiver.
///
/// A region's state changes only when `agreement` consecutive usable fixes agree on the new
/// state from outside a band around the boundary, and (except for the first placement out of
/// `.unknown`) the new state has held for `dwell` seconds of fix time. The band is
/// `baseMargin` plus the fix's own accuracy wide on the outside, and as wide (but at most half
/// the radius) on the inside, so a receiver sitting near the boundary never flaps.
///
/// A fix looks at two kinds of region only: those on the attention list (inside, unknown, or
/// with a change pending), wherever they are, so an exit is seen even after a jump; and those
/// whose circle covers the fix's cell of a ``RegionGrid``, as only a fix inside a circle can
/// start an entry. Regions added in bulk as `.unknown` are all on the list until the first
/// `agreement` fixes place them (far ones outside), once.
public struct RegionMonitor: Sendable {
    /// The hysteresis and limits.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Seconds of fix time a new state must hold before a transition (not applied from `.unknown`).
        public var dwell: Double
        /// Metres of hysteresis band on each side of the boundary, before the fix's accuracy.
        public var baseMargin: Double
        /// Metres of accuracy assumed for a fix that gives none.
        public var assumedAccuracy: Double
        /// Fixes less accurate than this, in metres, are ignored.
        public var maximumAccuracy: Double
        /// Consecutive fixes that must agree before any transition (also from `.unknown`).
        public var agreement: Int
        /// The largest radius accepted, in metres.
        public var maximumRadius: Double

        /// Creates a configuration.
        /// - Parameters:
        ///   - dwell: Seconds of fix time a new state must hold.
        ///   - baseMargin: Metres of band each side of the boundary.
        ///   - assumedAccuracy: Metres of accuracy for a fix without one.
        ///   - maximumAccuracy: Metres beyond which a fix is ignored.
        ///   - agreement: Consecutive agreeing fixes needed (values below 1 count as 1).
        ///   - maximumRadius: The largest radius accepted.
        public init(
            dwell: Double = 20,
            baseMargin: Double = 5,
            assumedAccuracy: Double = 10,
            maximumAccuracy: Double = 100,
            agreement: Int = 2,
            maximumRadius: Double = 100_000
        ) {
            self.dwell = dwell
            self.baseMargin = baseMargin
            self.assumedAccuracy = assumedAccuracy
            self.maximumAccuracy = maximumAccuracy
            self.agreement = agreement
            self.maximumRadius = maximumRadius
        }
    }

    /// The hysteresis and limits in force.
    public let configuration: Configuration

    /// The rest of a region, read only when it changes state.
    private struct Record {
        var owner: RegionOwner
        var region: CircularRegion
    }

    private var slots: [RegionSlot] = []
    /// Parallel to ``slots``; `nil` for a free slot.
    private var records: [Record?] = []
    private var freeSlots: [Int32] = []
    /// Slot of each region by owner and identifier.
    private var byOwner: [RegionOwner: [String: Int32]] = [:]
    private var grid = RegionGrid()
    /// Regions every fix looks at: not known to be outside, or about to change.
    private var attention: [Int32] = []
    /// Counts fixes, to mark the regions a fix has looked at.
    private var fixNumber: UInt32 = 0

    /// The number of regions monitored, for all owners.
    public private(set) var count = 0

    private var agreement: Int { max(1, configuration.agreement) }

    /// Creates a monitor with no regions.
    /// - Parameter configuration: The hysteresis and limits.
    public init(_ configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    // MARK: Regions

    /// Starts monitoring (replacing a region of the same owner and identifier), with a state restored from storage or .unknown.
    /// - Parameters:
    ///   - region: The region.
    ///   - owner: Whose it is: the app that asked, or its notification request.
    ///   - state: The state it was last known in; `.unknown` for a new region.
    /// - Throws: ``RegionError`` when the identifier, centre or radius is unusable; a region
    ///   already monitored under that identifier then stays as it was.
    public mutating func add(_ region: CircularRegion, owner: RegionOwner, state: RegionState = .unknown)
        throws(RegionError)
    {
        try region.validate(maximumRadius: configuration.maximumRadius)
        remove(region.identifier, owner: owner)
        let index = freeSlots.popLast() ?? Int32(slots.count)
        let placement = grid.insert(index, center: region.center, radius: region.radius)
        let slot = RegionSlot(
            center: GeoPoint(region.center),
            radius: region.radius,
            tracker: RegionTracker(state: state),
            placement: placement
        )
        let record = Record(owner: owner, region: region)
        if Int(index) == slots.count {
            slots.append(slot)
            records.append(record)
        } else {
            slots[Int(index)] = slot
            records[Int(index)] = record
        }
        byOwner[owner, default: [:]][region.identifier] = index
        count += 1
        RegionSlot.updateAttention(Int(index), slots: &slots, attention: &attention)
    }

    /// Stops monitoring a region.
    /// - Parameters:
    ///   - identifier: The region's identifier.
    ///   - owner: Whose it is.
    /// - Returns: Whether there was such a region.
    @discardableResult
    public mutating func remove(_ identifier: String, owner: RegionOwner) -> Bool {
        guard let index = byOwner[owner]?.removeValue(forKey: identifier) else { return false }
        if byOwner[owner]?.isEmpty == true { byOwner[owner] = nil }
        release(Int(index))
        return true
    }

    /// Stops monitoring every region of an app (it was deleted, or stopped all monitoring).
    /// - Parameter owner: Whose they are.
    public mutating func removeAll(owner: RegionOwner) {
        guard let indices = byOwner.removeValue(forKey: owner) else { return }
        for index in indices.values { release(Int(index)) }
    }

    /// The regions an app monitors.
    /// - Parameter owner: Whose they are.
    /// - Returns: Its regions, sorted by identifier.
    public func regions(owner: RegionOwner) -> [CircularRegion] {
        guard let indices = byOwner[owner] else { return [] }
        return indices.sorted { $0.key < $1.key }.compactMap { records[Int($0.value)]?.region }
    }

    /// How many apps monitor regions of their own or for their notifications.
    public var ownerCount: Int {
        Set(byOwner.keys.map(\.bundle)).count
    }

    /// How many regions an app monitors (iOS allows 20 per app; the daemon decides).
    /// - Parameter owner: Whose they are.
    public func count(owner: RegionOwner) -> Int {
        byOwner[owner]?.count ?? 0
    }

    /// A region's confirmed state.
    /// - Parameters:
    ///   - identifier: The region's identifier.
    ///   - owner: Whose it is.
    /// - Returns: The state, or `nil` when there is no such region.
    public func state(of identifier: String, owner: RegionOwner) -> RegionState? {
        guard let index = byOwner[owner]?[identifier] else { return nil }
        return slots[Int(index)].tracker.state
    }

    // MARK: Fixes

    /// What one fix shows for a region, with the hysteresis band: .inside, .outside, or .unknown inside the band (or for a fix too inaccurate). For requestState.
    /// - Parameters:
    ///   - region: The region, monitored or not.
    ///   - location: The fix.
    /// - Returns: The state this fix alone shows.
    public func classify(_ region: CircularRegion, at location: Location) -> RegionState {
        guard let margin = margin(for: location) else { return .unknown }
        return GeoPoint(location.coordinate).classify(
            around: GeoPoint(region.center),
            inner: region.radius - min(margin, region.radius / 2),
            outer: region.radius + margin
        )
    }

    /// Feeds one fix; returns the transitions it confirms (callers persist `to` and notify apps).
    /// - Parameter location: The next fix, in the order the receiver produced them.
    /// - Returns: The transitions, in no particular order; empty for most fixes.
    public mutating func offer(_ location: Location) -> [RegionTransition] {
        guard let margin = margin(for: location) else { return [] }
        fixNumber &+= 1
        if fixNumber == 0 {
            // After 2³² fixes the marks start again; clear the old ones first.
            for index in slots.indices { slots[index].visited = 0 }
            fixNumber = 1
        }
        let scan = RegionScan(
            fix: GeoPoint(location.coordinate),
            time: location.timestamp,
            margin: margin,
            mark: fixNumber,
            agreement: agreement,
            dwell: configuration.dwell
        )
        let changes = scan.run(grid: grid, slots: &slots, attention: &attention)
        return changes.compactMap { change in
            records[Int(change.slot)].map { record in
                RegionTransition(
                    owner: record.owner,
                    region: record.region,
                    from: change.from,
                    to: change.to,
                    location: location,
                    qualifiedAt: change.qualifiedAt
                )
            }
        }
    }

    // MARK: Internals

    /// The band's width for this fix, or `nil` when the fix is unusable or too inaccurate.
    private func margin(for location: Location) -> Double? {
        guard location.isUsable else { return nil }
        let accuracy = location.horizontalAccuracy ?? configuration.assumedAccuracy
        // Also refuses NaN and CoreLocation's negative "invalid".
        guard accuracy >= 0, accuracy <= configuration.maximumAccuracy else { return nil }
        return max(0, configuration.baseMargin) + accuracy
    }

    /// Frees a slot whose region is already gone from ``byOwner``.
    private mutating func release(_ index: Int) {
        guard let record = records[index] else { return }
        RegionSlot.dropAttention(index, slots: &slots, attention: &attention)
        grid.remove(
            Int32(index),
            center: record.region.center,
            radius: record.region.radius,
            placement: slots[index].placement
        )
        records[index] = nil
        freeSlots.append(Int32(index))
        count -= 1
    }
}
