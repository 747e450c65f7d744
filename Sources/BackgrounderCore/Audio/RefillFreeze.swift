/// A background player frozen between refills of its audio ring (docs/AUDIO.md).
///
/// An app whose only work in the background is feeding a playing stream sleeps, once its ring
/// is full, until the ring runs low: the daemon freezes it for that time, so it costs nothing
/// and can do nothing else, and thaws it when the ring reaches its low-water mark or anything
/// is sent to it. Its life-cycle state stays `background`: to the app and to iOS's rules it
/// is running, as a player whose process the scheduler did not pick.
public struct RefillFreeze: Sendable, Equatable {
    /// When the current freeze began, on the core's clock; `nil` while the app runs.
    public private(set) var since: Duration?
    /// Frozen time of the freezes that ended.
    public private(set) var completed: Duration = .zero
    /// How many freezes there were.
    public private(set) var count = 0

    /// A player that was never frozen.
    public init() {}

    /// Whether the app is frozen for a refill now.
    public var isFrozen: Bool { since != nil }

    /// Records a freeze that began now (a second one while frozen is ignored).
    public mutating func froze(at now: Duration) {
        guard since == nil else { return }
        since = now
        count += 1
    }

    /// Records that the freeze ended now.
    public mutating func thawed(at now: Duration) {
        guard let since else { return }
        completed += max(.zero, now - since)
        self.since = nil
    }

    /// All the time frozen between refills, the current freeze included.
    public func total(at now: Duration) -> Duration {
        completed + (since.map { max(.zero, now - $0) } ?? .zero)
    }

    /// Whether an app may be frozen between refills: it is in the background, its only
    /// reason to run is its audio (no task finishing, no event window, no other assertion
    /// such as location, whose fixes it must hear), and no person has it in front.
    public static func allows(_ lifecycle: AppLifecycle, inFront: Bool) -> Bool {
        lifecycle.state == .background && !inFront && lifecycle.terminating == nil
            && lifecycle.assertions == [.audio] && lifecycle.tasks.isEmpty && lifecycle.windows.isEmpty
    }
}
