/// One app's standing request for location: what it subscribed to, the filters that decide
/// which fixes pass, and when the first fix waiting for a suspended app's deferral arrived.
public struct LocationListener: Sendable {
    /// What the app asked for.
    public private(set) var subscription = LocationSubscription()
    /// The standard-update filter, while standard updates are on.
    public var standard: StandardUpdateFilter?
    /// The significant-change filter, while that monitoring is on.
    public var significant: SignificantChangeFilter?
    /// The first fix that queued since the app was suspended, for its deferral.
    public var firstDeferred: Location?

    /// A listener that asked for nothing yet.
    public init() {}

    /// A listener with a subscription.
    public init(_ subscription: LocationSubscription) { apply(subscription) }

    /// Applies a new subscription, keeping a filter's state when its settings did not change.
    public mutating func apply(_ new: LocationSubscription) {
        if new.standard != subscription.standard || standard == nil {
            standard = new.standard.map { StandardUpdateFilter($0) }
        }
        if !new.significantChanges {
            significant = nil
        } else if significant == nil {
            significant = SignificantChangeFilter()
        }
        if new.standard == nil { firstDeferred = nil }
        subscription = new
    }
}
