/// Why an audio stream is corked (held silent, its data kept). A stream plays only while
/// nothing corks it. The raw value is how `bgctl audio` and `AUDIO_STATUS`'s `corkedBy` spell it.
public enum AudioCorkReason: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// The app has not started the stream, or paused it. `corkedBy` leaves it out: it is the
    /// stream's own state (`paused`), not something done to it.
    case app
    /// Another app's non-mixable session took over (``AudioFocus/Verdict/interrupted``).
    case interrupted
    /// The app is in the background and may not be heard there
    /// (``AudioFocus/Verdict/silencedInBackground``).
    case background
    /// The sound server is not connected.
    case server
    /// The sound server asked for quiet (a call, its role policy: `module-role-cork`): an
    /// interruption the app hears, with reason `serverRequest`.
    case requested

    /// By name, so `corkedBy` lists them in a stable order.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
