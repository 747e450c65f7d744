/// What the app's location is for, as `CLActivityType`: it decides how long the device may
/// stand still before updates pause automatically (``StandardUpdateFilter``).
public enum ActivityType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Anything else; the default.
    case other
    /// Driving directions: a car stands still at a light or in a jam, not for long.
    case automotiveNavigation
    /// Walking, running, cycling: a hiker rests a while before the track may pause.
    case fitness
    /// Boats, trains, other navigation.
    case otherNavigation
    /// Flight: updates never pause.
    case airborne

    /// Seconds of fix time standing still (within ``StandardUpdateFilter/stationaryRadius``)
    /// before updates pause, or `nil` for never. iOS publishes no numbers; these stand far
    /// past a stop at a light or a breath on a climb.
    public var pauseAfter: Double? {
        switch self {
        case .automotiveNavigation, .otherNavigation: 180
        case .fitness, .other: 300
        case .airborne: nil
        }
    }
}
