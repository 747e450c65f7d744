/// What a fix needs of a monitored region, kept apart from its strings so the per-fix loop
/// touches plain numbers only.
struct RegionSlot: Sendable {
    var center: GeoPoint
    var radius: Double
    var tracker: RegionTracker
    /// Where ``RegionGrid`` registered it.
    var placement: Int8
    /// The fix that last looked at it, so no fix looks twice.
    var visited: UInt32 = 0
    /// Its position in the attention list, or -1.
    var attentionIndex: Int32 = -1

    /// Puts a slot in the attention list (the regions every fix looks at) or takes it out, as
    /// its tracker needs.
    /// - Parameters:
    ///   - index: The slot.
    ///   - slots: All slots: an array, or a buffer while a fix is scanned.
    ///   - attention: The list.
    static func updateAttention<Slots: MutableCollection<RegionSlot>>(
        _ index: Int,
        slots: inout Slots,
        attention: inout [Int32]
    ) where Slots.Index == Int {
        let wanted = slots[index].tracker.needsAttention
        let position = Int(slots[index].attentionIndex)
        if wanted && position < 0 {
            slots[index].attentionIndex = Int32(attention.count)
            attention.append(Int32(index))
        } else if !wanted && position >= 0 {
            dropAttention(index, slots: &slots, attention: &attention)
        }
    }

    /// Takes a slot out of the attention list, moving the last one into its place.
    static func dropAttention<Slots: MutableCollection<RegionSlot>>(
        _ index: Int,
        slots: inout Slots,
        attention: inout [Int32]
    ) where Slots.Index == Int {
        let position = Int(slots[index].attentionIndex)
        guard position >= 0 else { return }
        slots[index].attentionIndex = -1
        let last = attention.removeLast()
        if position < attention.count {
            attention[position] = last
            slots[Int(last)].attentionIndex = Int32(position)
        }
    }
}
