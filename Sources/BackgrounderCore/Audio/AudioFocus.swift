/// Who may be heard: iOS's audio-session arbitration in one pure function.
///
/// Given every app's session and situation it says which apps are interrupted, which are
/// ducked and which are silenced for being in the background without the right. The
/// daemon diffs one verdict against the next to tell apps "interruption began/ended".
public enum AudioFocus {
    /// One app as the arbiter sees it.
    public struct Participant: Sendable, Hashable {
        /// The app's bundle identifier.
        public var identifier: BundleID
        /// Its session.
        public var session: AudioSessionConfiguration
        /// Whether it declares the `audio` background mode.
        public var hasAudioMode: Bool
        /// Whether it is the foreground app.
        public var isForeground: Bool
        /// When it last activated its session (any monotonic clock), to order contenders.
        public var activatedAt: Duration

        public init(
            identifier: BundleID, session: AudioSessionConfiguration, hasAudioMode: Bool, isForeground: Bool,
            activatedAt: Duration
        ) {
            self.identifier = identifier
            self.session = session
            self.hasAudioMode = hasAudioMode
            self.isForeground = isForeground
            self.activatedAt = activatedAt
        }

        /// Whether its audio may go on while it is not in the foreground.
        public var mayContinueInBackground: Bool { hasAudioMode && session.category.continuesInBackground }

        /// Whether it may be heard at all right now, before others are considered.
        public var mayBeHeard: Bool { session.isActive && (isForeground || mayContinueInBackground) }
    }

    /// What one app is allowed.
    public struct Verdict: Sendable, Hashable {
        /// Another app's non-mixable session took over; its streams are corked.
        public var interrupted: Bool
        /// Another app's session asked to duck others; its playback is lowered.
        public var ducked: Bool
        /// It is in the background without the `audio` mode (or with a category that stops
        /// there); its streams are corked.
        public var silencedInBackground: Bool

        public init(interrupted: Bool = false, ducked: Bool = false, silencedInBackground: Bool = false) {
            self.interrupted = interrupted
            self.ducked = ducked
            self.silencedInBackground = silencedInBackground
        }

        /// Whether its streams must be corked.
        public var isCorked: Bool { interrupted || silencedInBackground }
    }

    /// The volume a ducked stream plays at (linear, about -12 dB, as iOS ducks).
    public static let duckedVolume = 0.25

    /// Decides every participant's verdict.
    ///
    /// The owner of non-mixable audio is the foreground app's active non-mixable session,
    /// or else the most recently activated one that may be heard; every other active
    /// non-mixable session is interrupted. Mixable sessions are never interrupted. A
    /// session with duckOthers that may be heard ducks every other app.
    public static func decide(_ participants: [Participant]) -> [BundleID: Verdict] {
        let contenders = participants.filter { $0.mayBeHeard && !$0.session.isMixable }
        let owner =
            contenders.first { $0.isForeground }
            ?? contenders.max { ($0.activatedAt, $0.identifier) < ($1.activatedAt, $1.identifier) }
        let duckers = participants.filter { $0.mayBeHeard && $0.session.options.contains(.duckOthers) }
        var verdicts: [BundleID: Verdict] = [:]
        for participant in participants {
            var verdict = Verdict()
            verdict.silencedInBackground = !participant.isForeground && !participant.mayContinueInBackground
            if let owner, owner.identifier != participant.identifier, participant.session.isActive,
                !participant.session.isMixable
            {
                verdict.interrupted = true
            }
            verdict.ducked = duckers.contains { $0.identifier != participant.identifier }
            verdicts[participant.identifier] = verdict
        }
        return verdicts
    }
}
