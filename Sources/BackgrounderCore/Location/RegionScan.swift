/// One fix's pass over the regions that could notice it: those needing attention, those listed
/// in the fix's cell of each grid level and not ruled out by distance, and the large ones.
struct RegionScan {
    /// A transition the fix confirmed, before the monitor adds owner and region.
    struct Change {
        var slot: Int32
        var from: RegionState
        var to: RegionState
        var qualifiedAt: Double
    }

    let fix: GeoPoint
    let time: Double
    /// The hysteresis margin for this fix's accuracy.
    let margin: Double
    /// Marks the regions this fix has looked at.
    let mark: UInt32
    let agreement: Int
    let dwell: Double

    /// Runs the pass.
    /// - Returns: The transitions confirmed; empty (and not allocated) for most fixes.
    func run(grid: RegionGrid, slots: inout [RegionSlot], attention: inout [Int32]) -> [Change] {
        var changes: [Change] = []
        // A buffer, not the array, so the loop pays no uniqueness check per region.
        slots.withUnsafeMutableBufferPointer { slots in
            // Backwards: a region leaving the list is replaced by the last one, already seen.
            var position = attention.count - 1
            while position >= 0 {
                visit(Int(attention[position]), slots: &slots, attention: &attention, changes: &changes)
                position -= 1
            }
            for level in grid.levels where level.regions > 0 {
                let probe = level.probe(fix)
                guard let entries = level.cells[probe.key] else { continue }
                for entry in entries where !probe.rulesOut(entry, margin: margin) {
                    let index = Int(entry.slot)
                    if slots[index].visited != mark {
                        visit(index, slots: &slots, attention: &attention, changes: &changes)
                    }
                }
            }
            for index in grid.large where slots[Int(index)].visited != mark {
                visit(Int(index), slots: &slots, attention: &attention, changes: &changes)
            }
        }
        return changes
    }

    private func visit(
        _ index: Int,
        slots: inout UnsafeMutableBufferPointer<RegionSlot>,
        attention: inout [Int32],
        changes: inout [Change]
    ) {
        slots[index].visited = mark
        let radius = slots[index].radius
        let observed = fix.classify(
            around: slots[index].center,
            inner: radius - min(margin, radius / 2),
            outer: radius + margin
        )
        let before = slots[index].tracker.state
        guard observed != .unknown, observed != before || slots[index].tracker.candidate != nil else { return }
        if let qualifiedAt = slots[index].tracker.observe(observed, at: time, agreement: agreement, dwell: dwell) {
            changes.append(Change(slot: Int32(index), from: before, to: observed, qualifiedAt: qualifiedAt))
        }
        RegionSlot.updateAttention(index, slots: &slots, attention: &attention)
    }
}
