/// The user and group ids apps run under when the daemon runs as root: one per bundle
/// identifier, like systemd's `DynamicUser=`, but kept for good (the app's data directory
/// keeps its owner across restarts).
///
/// The range, 2000000000-2000065535, is in the block systemd documents as unused
/// (1879048192-2147352575): clear of its DynamicUser range (61184-65519), of the container
/// ranges `systemd-nspawn` picks (524288-1879048191), and of the subordinate ids `useradd`
/// hands out (100000-600165535 by default).
public struct AppUserRange: Sendable, Hashable {
    /// The first id.
    public var first: UInt32
    /// The last id.
    public var last: UInt32

    /// Backgrounder's range.
    public static let standard = AppUserRange(first: 2_000_000_000, last: 2_000_065_535)

    /// Creates a range.
    public init(first: UInt32, last: UInt32) {
        precondition(first <= last, "an id range must not be empty")
        self.first = first
        self.last = last
    }

    /// Whether `id` is in the range.
    public func contains(_ id: UInt32) -> Bool {
        id >= first && id <= last
    }

    /// The lowest id of the range that is neither assigned nor taken.
    /// - Parameters:
    ///   - assigned: Ids already given to apps.
    ///   - isTaken: Whether the system already uses an id (a user or group database entry).
    /// - Returns: The id, or `nil` when the range is exhausted.
    public func firstFree(assigned: Set<UInt32>, isTaken: (UInt32) -> Bool = { _ in false }) -> UInt32? {
        var candidate = first
        while true {
            if !assigned.contains(candidate) && !isTaken(candidate) { return candidate }
            if candidate == last { return nil }
            candidate += 1
        }
    }

    /// `first-last`, as `bgctl status` and the docs show it.
    public var description: String { "\(first)-\(last)" }
}
