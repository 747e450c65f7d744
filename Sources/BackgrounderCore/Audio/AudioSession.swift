/// What an app does with audio, as `AVAudioSession.Category`. The raw values are the
/// names BackgroundKit and the wire protocol use.
public enum AudioSessionCategory: String, Sendable, Hashable, Codable, CaseIterable {
    /// Plays audio that is central to the app (music, podcasts); with the `audio` mode it
    /// keeps playing in the background. Not mixable unless asked.
    case playback
    /// Records; with the `audio` mode it keeps recording in the background.
    case record
    /// Plays and records (calls, voice memos with monitoring).
    case playAndRecord
    /// Sound that accompanies the app (game effects): always mixes with others and stops
    /// when the app leaves the foreground.
    case ambient
    /// The default: like ambient, but silences others while active.
    case soloAmbient

    /// Whether the category plays.
    public var plays: Bool { self != .record }
    /// Whether the category records.
    public var records: Bool { self == .record || self == .playAndRecord }
    /// Whether the category may go on in the background (with the `audio` mode): on iOS
    /// ambient and solo-ambient audio stop when the app leaves the screen.
    public var continuesInBackground: Bool { self == .playback || self == .record || self == .playAndRecord }

    /// The stream's `media.role` for the sound server, so mixers and policies (PulseAudio's
    /// `module-role-cork` and `module-role-ducking`, PipeWire's) tell a player from a call.
    public var mediaRole: String {
        switch self {
        case .playback: "music"
        case .playAndRecord: "phone"
        case .record: "production"
        case .ambient, .soloAmbient: "game"
        }
    }
}

/// How a session gets on with other apps' audio, as `AVAudioSession.CategoryOptions`.
public struct AudioSessionOptions: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Plays alongside other apps instead of interrupting them.
    public static let mixWithOthers = AudioSessionOptions(rawValue: 1 << 0)
    /// Lowers other apps' volume while active (and, as on iOS, implies mixing).
    public static let duckOthers = AudioSessionOptions(rawValue: 1 << 1)

    /// The options' wire names, in a stable order.
    public var names: [String] {
        var names: [String] = []
        if contains(.mixWithOthers) { names.append("mixWithOthers") }
        if contains(.duckOthers) { names.append("duckOthers") }
        return names
    }

    /// Options from their wire names.
    /// - Throws: ``AudioSessionError`` naming an unknown option.
    public init(names: [String]) throws(AudioSessionError) {
        var options: AudioSessionOptions = []
        for name in names {
            switch name {
            case "mixWithOthers": options.insert(.mixWithOthers)
            case "duckOthers": options.insert(.duckOthers)
            default: throw AudioSessionError("options: unknown option '\(name)' (known: mixWithOthers, duckOthers)")
            }
        }
        self = options
    }
}

/// An app's audio session: its category, options and whether it is active.
public struct AudioSessionConfiguration: Sendable, Hashable, Codable {
    /// The category.
    public var category: AudioSessionCategory
    /// The options.
    public var options: AudioSessionOptions
    /// Whether the app made the session active (`setActive(true)`).
    public var isActive: Bool

    /// Creates a configuration; iOS's default is an inactive solo-ambient session.
    public init(
        category: AudioSessionCategory = .soloAmbient, options: AudioSessionOptions = [], isActive: Bool = false
    ) {
        self.category = category
        self.options = options
        self.isActive = isActive
    }

    /// Whether the session lets others' audio go on: ambient always does, and so does any
    /// category with mixWithOthers or duckOthers.
    public var isMixable: Bool {
        category == .ambient || options.contains(.mixWithOthers) || options.contains(.duckOthers)
    }
}

/// Why an audio session request was refused.
public struct AudioSessionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
