public import BackgrounderCore

/// `AUDIO_SESSION`: an app sets its audio session's category and options and activates or
/// deactivates it, as `AVAudioSession.setCategory` and `setActive`.
public struct AudioSessionRequest: Sendable, Hashable, Codable {
    /// The category.
    public var category: AudioSessionCategory
    /// Option names: `mixWithOthers`, `duckOthers`.
    public var options: [String]
    /// Whether the session is to be active.
    public var active: Bool

    /// Creates a request.
    public init(category: AudioSessionCategory, options: AudioSessionOptions, active: Bool) {
        self.category = category
        self.options = options.names
        self.active = active
    }
}

/// Which way PCM flows in a stream.
public enum AudioDirection: String, Sendable, Hashable, Codable {
    /// The app writes, the daemon plays.
    case playback
    /// The daemon records, the app reads.
    case record
}

/// `AUDIO_STREAM_OPEN`: an app asks for a stream. PCM never travels in JSON: the reply names
/// a ring in shared memory, fetched over the audio socket (docs/AUDIO.md).
public struct AudioStreamRequest: Sendable, Hashable, Codable {
    /// Playback or record.
    public var direction: AudioDirection
    /// The PCM format.
    public var format: AudioFormat
    /// Seconds of audio the ring holds; the daemon clamps it to 0.05...10 (default 2).
    public var bufferSeconds: Double?

    /// Creates a request.
    public init(direction: AudioDirection, format: AudioFormat, bufferSeconds: Double? = nil) {
        self.direction = direction
        self.format = format
        self.bufferSeconds = bufferSeconds
    }
}

/// `AUDIO_STREAM` reply: the stream and how to attach to its ring.
public struct AudioStreamGrant: Sendable, Hashable, Codable {
    /// The stream's number, unique in this daemon.
    public var stream: Int
    /// The one-time token the app sends on the audio socket to receive the ring.
    public var token: String
    /// The audio socket's path.
    public var socket: String
    /// The ring's size in bytes.
    public var capacity: Int
    /// Below this many buffered bytes (playback) or above it (record) the waiting side is woken.
    public var lowWater: Int

    /// Creates a grant.
    public init(stream: Int, token: String, socket: String, capacity: Int, lowWater: Int) {
        self.stream = stream
        self.token = token
        self.socket = socket
        self.capacity = capacity
        self.lowWater = lowWater
    }
}

/// `AUDIO_STREAM_CONTROL`: what an app does with one of its streams.
public struct AudioStreamControl: Sendable, Hashable, Codable {
    /// The actions.
    public enum Action: String, Sendable, Hashable, Codable {
        /// Starts (uncorks) the stream: it plays or records and counts as audio activity.
        case start
        /// Pauses (corks) it, keeping what is buffered.
        case pause
        /// Drops what is buffered, in the ring and in the server (a seek).
        case flush
        /// Answers once everything buffered has played.
        case drain
        /// Closes the stream.
        case close
    }

    /// The stream's number.
    public var stream: Int
    /// What to do.
    public var action: Action

    /// Creates a control request.
    public init(stream: Int, action: Action) {
        self.stream = stream
        self.action = action
    }
}

/// `AUDIO_INTERRUPTION`: sent to an app when its audio is interrupted or the interruption
/// ends, as `AVAudioSession.interruptionNotification`.
public struct AudioInterruption: Sendable, Hashable, Codable {
    /// Began or ended.
    public enum Kind: String, Sendable, Hashable, Codable {
        case began, ended
    }

    /// Why.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// Another app's non-mixable session took over.
        case session
        /// The sound server went away (it restarted or died); ends when it is back.
        case serverLost
        /// The sound server asked for quiet (a call began, by its role policy); ends when it
        /// lets go (protocol 1.13).
        case serverRequest
    }

    /// Began or ended.
    public var type: Kind
    /// For `ended`: whether the app should resume playing.
    public var shouldResume: Bool
    /// Why.
    public var reason: Reason

    /// Creates a notice.
    public init(type: Kind, shouldResume: Bool = false, reason: Reason) {
        self.type = type
        self.shouldResume = shouldResume
        self.reason = reason
    }
}

/// `AUDIO_ROUTE_CHANGE` (protocol 1.13): where an app's sound goes changed, as
/// `AVAudioSession.routeChangeNotification`.
public struct AudioRouteChange: Sendable, Hashable, Codable {
    /// Why, as `AVAudioSession.RouteChangeReason`.
    public enum Reason: String, Sendable, Hashable, Codable {
        /// The output the app played to went away (unplugged headphones: its sink was removed).
        /// Its playback was paused, as on iOS.
        case oldDeviceUnavailable
        /// A new default output appeared and the sound followed it (headphones plugged in). It
        /// plays on, as on iOS.
        case newDeviceAvailable
        /// A person sent the app's sound elsewhere (`bgctl audio ID --sink`, a mixer). It plays on.
        case override
    }

    /// Why.
    public var reason: Reason
    /// The stream it concerns.
    public var stream: Int
    /// The output it played to (the sound server's sink name), when known.
    public var previousOutput: String?
    /// The output it plays to now, when known.
    public var output: String?
    /// Whether the daemon paused the stream (``Reason/oldDeviceUnavailable``): the app starts
    /// it again to play on.
    public var paused: Bool

    /// Creates a notice.
    public init(reason: Reason, stream: Int, previousOutput: String?, output: String?, paused: Bool) {
        self.reason = reason
        self.stream = stream
        self.previousOutput = previousOutput
        self.output = output
        self.paused = paused
    }
}

/// `AUDIO_ROUTE` (protocol 1.13): a person sends an app's playback to another output.
public struct AudioRouteRequest: Sendable, Hashable, Codable {
    /// The app.
    public var bundle: BundleID
    /// The sound server's sink to play to (`pactl list short sinks` names them).
    public var sink: String

    /// Creates a request.
    public init(bundle: BundleID, sink: String) {
        self.bundle = bundle
        self.sink = sink
    }
}

/// A command a person sends to a media app from outside it, as `MPRemoteCommandCenter`'s.
public enum RemoteCommand: String, Sendable, Hashable, Codable, CaseIterable {
    /// Play; with an argument, play that item (a path).
    case play
    /// Pause.
    case pause
    /// Play if paused, pause if playing.
    case togglePlayPause
    /// Skip to the next item.
    case nextTrack
    /// Go back to the previous item.
    case previousTrack
    /// Seek; the argument is the position in seconds.
    case changePlaybackPosition
    /// Repeat nothing, the item or the whole queue; the argument is a ``RepeatMode``.
    case changeRepeatMode
    /// Shuffle the queue or play it in order; the argument is a ``ShuffleMode``.
    case changeShuffleMode
    /// The player's own volume, as MPRIS's `Volume` (iOS leaves the system volume to the
    /// person, and so does this: it scales the app's output, like `AVPlayer.volume`); the
    /// argument is a level from 0 to 1.
    case changeVolume

    /// Why an argument is not one this command takes, or `nil` when it is. Checked by the
    /// daemon before a person's command reaches the app, so a typo is answered at once.
    public func problem(with argument: String?) -> String? {
        switch self {
        case .play, .pause, .togglePlayPause, .nextTrack, .previousTrack:
            return nil
        case .changePlaybackPosition:
            guard let seconds = argument.flatMap(Double.init), seconds.isFinite, seconds >= 0 else {
                return "takes a position in seconds, 0 or more, not \(argument.map { "'\($0)'" } ?? "nothing")"
            }
            return nil
        case .changeRepeatMode:
            guard argument.flatMap(RepeatMode.init(rawValue:)) == nil else { return nil }
            let known = RepeatMode.allCases.map(\.rawValue).joined(separator: ", ")
            return "takes one of \(known), not \(argument.map { "'\($0)'" } ?? "nothing")"
        case .changeShuffleMode:
            guard argument.flatMap(ShuffleMode.init(rawValue:)) == nil else { return nil }
            let known = ShuffleMode.allCases.map(\.rawValue).joined(separator: ", ")
            return "takes one of \(known), not \(argument.map { "'\($0)'" } ?? "nothing")"
        case .changeVolume:
            guard let level = argument.flatMap(Double.init), level.isFinite, (0...1).contains(level) else {
                return "takes a level from 0 to 1, not \(argument.map { "'\($0)'" } ?? "nothing")"
            }
            return nil
        }
    }
}

/// What a player repeats, as `MPRepeatType`.
public enum RepeatMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Plays the queue once.
    case off
    /// Plays the current item again and again.
    case one
    /// Plays the queue again from the start after its last item.
    case all
}

/// Whether a player shuffles, as `MPShuffleType` (albums as units are not offered).
public enum ShuffleMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// The queue plays in its order.
    case off
    /// The items play in a random order.
    case items
}

/// `REMOTE_COMMAND`: from a person to an app with the `audio` mode (the daemon wakes or
/// launches it), and from the daemon to that app.
public struct RemoteCommandRequest: Sendable, Hashable, Codable {
    /// The app's `CFBundleIdentifier`.
    public var bundle: BundleID
    /// The command.
    public var command: RemoteCommand
    /// Its argument, if any.
    public var argument: String?
    /// The number the daemon gives the command when it sends it to the app, which the app's
    /// `REMOTE_COMMAND_STATUS` names; the daemon ignores one a person sends.
    public var ticket: Int?

    /// Creates a command.
    public init(bundle: BundleID, command: RemoteCommand, argument: String? = nil, ticket: Int? = nil) {
        self.bundle = bundle
        self.command = command
        self.argument = argument
        self.ticket = ticket
    }
}

/// What an app's handler made of a remote command, as `MPRemoteCommandHandlerStatus`.
public enum RemoteCommandHandlerStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Carried out.
    case success
    /// What the command asks for is not there: no next track after the last, a file that
    /// cannot be played.
    case noSuchContent
    /// Nothing is playing or paused for the command to act on.
    case noActionableNowPlayingItem
    /// No device to play on.
    case deviceNotFound
    /// The app tried and failed.
    case commandFailed
}

/// `REMOTE_COMMAND_STATUS`: an app's answer to a `REMOTE_COMMAND` the daemon sent it, which the
/// daemon passes to the person who sent the command.
public struct RemoteCommandStatusReport: Sendable, Hashable, Codable {
    /// The command's `ticket`.
    public var ticket: Int
    /// What the handler made of it.
    public var status: RemoteCommandHandlerStatus
    /// Why, when it was not carried out, in the app's words for the person who sent it (the
    /// daemon passes on at most ``maximumReasonLength`` characters).
    public var reason: String?

    /// The longest reason passed on.
    public static let maximumReasonLength = 1000

    /// Creates an answer.
    public init(ticket: Int, status: RemoteCommandHandlerStatus, reason: String? = nil) {
        self.ticket = ticket
        self.status = status
        self.reason = reason
    }
}

/// `NOW_PLAYING`: what an app is playing, as `MPNowPlayingInfoCenter`; kept by the daemon so
/// a person can read it without waking the app.
public struct NowPlayingInfo: Sendable, Hashable, Codable {
    /// The item's title.
    public var title: String
    /// Its artist, when known.
    public var artist: String?
    /// The file it comes from.
    public var path: String?
    /// Seconds into the item.
    public var elapsed: Double
    /// The item's length in seconds.
    public var duration: Double?
    /// Whether it is playing (rather than paused).
    public var playing: Bool
    /// The item's place in the queue (0-based) and the queue's length.
    public var index: Int?
    public var count: Int?
    /// Its album, when known.
    public var album: String?
    /// The queue's items (their paths) in the order they play, from ``queueStart``: as many
    /// as fit ``maximumQueueBytes``, so a library of thousands still fits a line. `nil` from
    /// an app that does not say.
    public var queue: [String]?
    /// The place in the queue of ``queue``'s first entry.
    public var queueStart: Int?
    /// The player's own volume, 0 to 1.
    public var volume: Double?
    /// What it repeats.
    public var repeatMode: RepeatMode?
    /// Whether it shuffles.
    public var shuffleMode: ShuffleMode?

    /// The most bytes of paths ``queue`` carries: a quarter of a line.
    public static let maximumQueueBytes = WireLimits.maximumLineLength / 4

    /// Creates the information.
    public init(
        title: String, artist: String? = nil, album: String? = nil, path: String? = nil, elapsed: Double,
        duration: Double? = nil, playing: Bool, index: Int? = nil, count: Int? = nil
    ) {
        self.title = title
        self.artist = artist
        self.album = album
        self.path = path
        self.elapsed = elapsed
        self.duration = duration
        self.playing = playing
        self.index = index
        self.count = count
    }

    /// Sets ``queue`` to the part of `items` a line carries: from a few items before the
    /// current one on, as many as fit ``maximumQueueBytes``.
    public mutating func describeQueue(_ items: [String]) {
        let first = max(0, (index ?? 0) - 2)
        var bytes = 0
        var window: [String] = []
        for item in items.dropFirst(first) {
            // Each path costs its bytes and JSON's quotes and comma (escapes are rare).
            bytes += item.utf8.count + 3
            guard bytes <= Self.maximumQueueBytes else { break }
            window.append(item)
        }
        queue = window
        queueStart = first
    }

    /// The information as it stands `seconds` after it was published: the position moves on
    /// while it plays, never past the item's end. The app says so only when something
    /// changes, so a playing app is not woken just to count seconds.
    public func advanced(by seconds: Double) -> NowPlayingInfo {
        var info = self
        if playing { info.elapsed += max(0, seconds) }
        if let duration { info.elapsed = min(info.elapsed, duration) }
        info.elapsed = max(0, info.elapsed)
        return info
    }
}

/// `AUDIO`: asks for the audio engine's view (`bgctl audio`).
public struct AudioQuery: Sendable, Hashable, Codable {
    /// Only this app's streams; all when absent.
    public var bundle: BundleID?

    /// Creates a query.
    public init(bundle: BundleID? = nil) {
        self.bundle = bundle
    }
}

/// The buffer attributes PulseAudio granted a stream, in bytes.
public struct AudioBufferAttributes: Sendable, Hashable, Codable {
    public var maxlength: UInt32
    public var tlength: UInt32
    public var prebuf: UInt32
    public var minreq: UInt32
    public var fragsize: UInt32

    /// Creates attributes.
    public init(maxlength: UInt32, tlength: UInt32, prebuf: UInt32, minreq: UInt32, fragsize: UInt32) {
        self.maxlength = maxlength
        self.tlength = tlength
        self.prebuf = prebuf
        self.minreq = minreq
        self.fragsize = fragsize
    }
}

/// One stream in an `AUDIO_STATUS` reply.
public struct AudioStreamInfo: Sendable, Hashable, Codable {
    /// The stream's number.
    public var stream: Int
    /// The app it belongs to.
    public var bundle: BundleID
    /// Playback or record.
    public var direction: AudioDirection
    /// Its PCM format.
    public var format: AudioFormat
    /// `playing`, `recording`, `paused`, `corked`, `starved`, `waiting` (for the app or the server).
    public var state: String
    /// Why it is corked besides the app's own pause (never ``AudioCorkReason/app``), sorted.
    public var corkedBy: [AudioCorkReason]
    /// Times the server ran out of this stream's data.
    public var underruns: Int
    /// Times data was lost for want of room (server overflows, or a full record ring).
    public var overruns: Int
    /// Seconds of audio in the shared ring.
    public var ringSeconds: Double
    /// The server's latency for the stream in seconds, when known.
    public var serverLatency: Double?
    /// The stream's volume, 0...1 (lower while ducked).
    public var volume: Double
    /// Bytes moved between the ring and the server.
    public var bytes: UInt64
    /// What the server granted, once connected.
    public var attributes: AudioBufferAttributes?

    /// Creates an entry.
    public init(
        stream: Int, bundle: BundleID, direction: AudioDirection, format: AudioFormat, state: String,
        corkedBy: [AudioCorkReason], underruns: Int, overruns: Int, ringSeconds: Double, serverLatency: Double?,
        volume: Double, bytes: UInt64, attributes: AudioBufferAttributes?
    ) {
        self.stream = stream
        self.bundle = bundle
        self.direction = direction
        self.format = format
        self.state = state
        self.corkedBy = corkedBy
        self.underruns = underruns
        self.overruns = overruns
        self.ringSeconds = ringSeconds
        self.serverLatency = serverLatency
        self.volume = volume
        self.bytes = bytes
        self.attributes = attributes
    }
}

/// One app's session in an `AUDIO_STATUS` reply.
public struct AudioSessionInfo: Sendable, Hashable, Codable {
    /// The app.
    public var bundle: BundleID
    /// Its category.
    public var category: AudioSessionCategory
    /// Its options' names.
    public var options: [String]
    /// Whether it is active.
    public var active: Bool
    /// Whether another session interrupts it.
    public var interrupted: Bool
    /// Whether another session ducks it.
    public var ducked: Bool
    /// What it last said it plays.
    public var nowPlaying: NowPlayingInfo?

    /// Creates an entry.
    public init(
        bundle: BundleID, category: AudioSessionCategory, options: [String], active: Bool, interrupted: Bool,
        ducked: Bool, nowPlaying: NowPlayingInfo?
    ) {
        self.bundle = bundle
        self.category = category
        self.options = options
        self.active = active
        self.interrupted = interrupted
        self.ducked = ducked
        self.nowPlaying = nowPlaying
    }
}

/// `AUDIO_STATUS`: the sound server, every session and every stream.
public struct AudioStatus: Sendable, Hashable, Codable {
    /// The PulseAudio connection.
    public var server: ServiceConnection
    /// Sessions, by app.
    public var sessions: [AudioSessionInfo]
    /// Streams, by number.
    public var streams: [AudioStreamInfo]

    /// Creates a status.
    public init(server: ServiceConnection, sessions: [AudioSessionInfo], streams: [AudioStreamInfo]) {
        self.server = server
        self.sessions = sessions
        self.streams = streams
    }
}
