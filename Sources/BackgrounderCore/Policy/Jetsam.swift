/// Who goes first when memory runs short, as iOS's jetsam: suspended apps, largest first,
/// then background apps, then apps playing audio; the foreground app last of all.
public enum Jetsam {
    /// An app the daemon could end to free memory.
    public struct Candidate: Sendable, Hashable {
        /// The bundle identifier.
        public var identifier: BundleID
        /// Its life-cycle state.
        public var state: ApplicationState
        /// Resident memory of its processes, in bytes.
        public var residentBytes: Int
        /// Whether it is the foreground app.
        public var isForeground: Bool
        /// Whether it holds an audio assertion.
        public var playsAudio: Bool

        /// Creates a candidate.
        public init(
            identifier: BundleID, state: ApplicationState, residentBytes: Int, isForeground: Bool, playsAudio: Bool
        ) {
            self.identifier = identifier
            self.state = state
            self.residentBytes = residentBytes
            self.isForeground = isForeground
            self.playsAudio = playsAudio
        }

        /// Lower goes first.
        var band: Int {
            if isForeground { return 3 }
            if playsAudio { return 2 }
            return state == .suspended ? 0 : 1
        }
    }

    /// The order in which apps are ended under memory pressure.
    /// - Parameter candidates: Every running app.
    /// - Returns: Identifiers, first victim first.
    public static func order(_ candidates: [Candidate]) -> [BundleID] {
        candidates
            .filter { $0.state != .notRunning }
            .sorted {
                ($0.band, -$0.residentBytes, $0.identifier) < ($1.band, -$1.residentBytes, $1.identifier)
            }
            .map(\.identifier)
    }
}
