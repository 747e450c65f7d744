public import BackgrounderCore
import Foundation

/// A request a client sends to the daemon: one JSON object on one line, its kind in the
/// `class` field and an optional `id` the reply echoes.
public struct ClientMessage: Sendable, Hashable {
    /// What the client asks for.
    public enum Body: Sendable, Hashable {
        /// Introduces the client and its protocol version.
        case hello(Hello)
        /// Asks for the daemon's status.
        case status
        /// Asks for every bundle, loaded or refused.
        case bundles
        /// Asks the daemon to rescan its bundle directories.
        case reload
        /// Launches an app, or brings it to the foreground.
        case open(AppReference)
        /// Sends the foreground app to the background (the home button).
        case home
        /// Locks the screen: the foreground app goes to the background until `unlock`.
        case lock
        /// Unlocks the screen: the app that was in front comes back.
        case unlock
        /// Force-quits an app.
        case quit(AppReference)
        /// Lists apps and their states.
        case ps
        /// An app the daemon launched introduces itself.
        case checkIn(CheckIn)
        /// An app begins a finite-length background task.
        case beginTask(BeginTask)
        /// An app ends a finite-length background task.
        case endTask(TaskReference)
        /// An event for an app: relaunch, wake or tell it.
        case wake(WakeRequest)
        /// Acts as if the kernel reported memory pressure (for tests and people trying it).
        case memoryPressure(MemoryPressure)
        /// A person grants or refuses a permission.
        case authorize(Authorize)
        /// An app asks for location authorization.
        case requestAuthorization(AuthorizationRequest)
        /// An app sets what location it wants (standard updates, significant changes).
        case locationUpdates(LocationSubscription)
        /// An app's location manager is ready for queued events.
        case locationReady
        /// An app has handled location events up to a sequence number.
        case locationAck(LocationAck)
        /// An app starts monitoring a region.
        case startMonitoring(RegionRequest)
        /// An app stops monitoring a region.
        case stopMonitoring(RegionReference)
        /// An app asks where it is relative to a region.
        case requestState(RegionReference)
        /// Lists monitored regions.
        case regions(RegionQuery)
        /// An app sets and activates its audio session.
        case audioSession(AudioSessionRequest)
        /// An app opens an audio stream.
        case openAudioStream(AudioStreamRequest)
        /// An app starts, pauses, flushes, drains or closes one of its streams.
        case audioStreamControl(AudioStreamControl)
        /// An app says what it is playing.
        case nowPlaying(NowPlayingInfo)
        /// A person sends a media command to an app.
        case remoteCommand(RemoteCommandRequest)
        /// Asks for the audio engine's sessions and streams.
        case audio(AudioQuery)
    }

    /// The request's identifier, echoed in the reply.
    public var id: MessageID?
    /// The request.
    public var body: Body

    /// Creates a request.
    public init(id: MessageID? = nil, _ body: Body) {
        self.id = id
        self.body = body
    }

    /// The class names a client may send, as they appear on the wire.
    public static let classNames = [
        "HELLO", "STATUS", "BUNDLES", "RELOAD", "OPEN", "HOME", "LOCK", "UNLOCK", "QUIT", "PS", "CHECKIN",
        "BEGIN_TASK", "END_TASK", "WAKE", "MEMORY_PRESSURE", "AUTHORIZE", "LOCATION_AUTHORIZATION",
        "LOCATION_UPDATES", "LOCATION_READY", "LOCATION_ACK", "REGION_START", "REGION_STOP", "REGION_STATE", "REGIONS",
        "AUDIO_SESSION", "AUDIO_STREAM_OPEN", "AUDIO_STREAM_CONTROL", "NOW_PLAYING", "REMOTE_COMMAND", "AUDIO",
    ]

    /// The wire name of this request's class.
    public var className: String {
        switch body {
        case .hello: "HELLO"
        case .status: "STATUS"
        case .bundles: "BUNDLES"
        case .reload: "RELOAD"
        case .open: "OPEN"
        case .home: "HOME"
        case .lock: "LOCK"
        case .unlock: "UNLOCK"
        case .quit: "QUIT"
        case .ps: "PS"
        case .checkIn: "CHECKIN"
        case .beginTask: "BEGIN_TASK"
        case .endTask: "END_TASK"
        case .wake: "WAKE"
        case .memoryPressure: "MEMORY_PRESSURE"
        case .authorize: "AUTHORIZE"
        case .requestAuthorization: "LOCATION_AUTHORIZATION"
        case .locationUpdates: "LOCATION_UPDATES"
        case .locationReady: "LOCATION_READY"
        case .locationAck: "LOCATION_ACK"
        case .startMonitoring: "REGION_START"
        case .stopMonitoring: "REGION_STOP"
        case .requestState: "REGION_STATE"
        case .regions: "REGIONS"
        case .audioSession: "AUDIO_SESSION"
        case .openAudioStream: "AUDIO_STREAM_OPEN"
        case .audioStreamControl: "AUDIO_STREAM_CONTROL"
        case .nowPlaying: "NOW_PLAYING"
        case .remoteCommand: "REMOTE_COMMAND"
        case .audio: "AUDIO"
        }
    }
}

/// `HELLO`: who the client is and which protocol it speaks.
public struct Hello: Sendable, Hashable, Codable {
    /// The client's protocol major version.
    public var `protocol`: Int
    /// A name for logs, such as `bgctl`.
    public var client: String?

    /// Creates a hello for this build's protocol.
    public init(protocol: Int = ProtocolVersion.major, client: String? = nil) {
        self.protocol = `protocol`
        self.client = client
    }
}

extension ClientMessage: Codable {
    private enum HeaderKeys: String, CodingKey {
        case `class`, id
    }

    public init(from decoder: any Decoder) throws {
        let header = try decoder.container(keyedBy: HeaderKeys.self)
        guard let className = try header.decodeIfPresent(String.self, forKey: .class) else {
            throw ProtocolError(.missingClass, "every message needs a \"class\" field")
        }
        id = try? header.decodeIfPresent(MessageID.self, forKey: .id)
        switch className {
        case "HELLO": body = .hello(try Hello(from: decoder))
        case "STATUS": body = .status
        case "BUNDLES": body = .bundles
        case "RELOAD": body = .reload
        case "OPEN": body = .open(try AppReference(from: decoder))
        case "HOME": body = .home
        case "LOCK": body = .lock
        case "UNLOCK": body = .unlock
        case "QUIT": body = .quit(try AppReference(from: decoder))
        case "PS": body = .ps
        case "CHECKIN": body = .checkIn(try CheckIn(from: decoder))
        case "BEGIN_TASK": body = .beginTask(try BeginTask(from: decoder))
        case "END_TASK": body = .endTask(try TaskReference(from: decoder))
        case "WAKE": body = .wake(try WakeRequest(from: decoder))
        case "MEMORY_PRESSURE": body = .memoryPressure(try MemoryPressure(from: decoder))
        case "AUTHORIZE": body = .authorize(try Authorize(from: decoder))
        case "LOCATION_AUTHORIZATION": body = .requestAuthorization(try AuthorizationRequest(from: decoder))
        case "LOCATION_UPDATES": body = .locationUpdates(try LocationSubscription(from: decoder))
        case "LOCATION_READY": body = .locationReady
        case "LOCATION_ACK": body = .locationAck(try LocationAck(from: decoder))
        case "REGION_START": body = .startMonitoring(try RegionRequest(from: decoder))
        case "REGION_STOP": body = .stopMonitoring(try RegionReference(from: decoder))
        case "REGION_STATE": body = .requestState(try RegionReference(from: decoder))
        case "REGIONS": body = .regions(try RegionQuery(from: decoder))
        case "AUDIO_SESSION": body = .audioSession(try AudioSessionRequest(from: decoder))
        case "AUDIO_STREAM_OPEN": body = .openAudioStream(try AudioStreamRequest(from: decoder))
        case "AUDIO_STREAM_CONTROL": body = .audioStreamControl(try AudioStreamControl(from: decoder))
        case "NOW_PLAYING": body = .nowPlaying(try NowPlayingInfo(from: decoder))
        case "REMOTE_COMMAND": body = .remoteCommand(try RemoteCommandRequest(from: decoder))
        case "AUDIO": body = .audio(try AudioQuery(from: decoder))
        default:
            throw ProtocolError(
                .unknownClass,
                "unknown class '\(className)' (known: \(Self.classNames.joined(separator: ", ")))"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var header = encoder.container(keyedBy: HeaderKeys.self)
        try header.encode(className, forKey: .class)
        try header.encodeIfPresent(id, forKey: .id)
        switch body {
        case .hello(let hello): try hello.encode(to: encoder)
        case .open(let app), .quit(let app): try app.encode(to: encoder)
        case .checkIn(let checkIn): try checkIn.encode(to: encoder)
        case .beginTask(let task): try task.encode(to: encoder)
        case .endTask(let task): try task.encode(to: encoder)
        case .wake(let wake): try wake.encode(to: encoder)
        case .memoryPressure(let pressure): try pressure.encode(to: encoder)
        case .authorize(let payload): try payload.encode(to: encoder)
        case .requestAuthorization(let payload): try payload.encode(to: encoder)
        case .locationUpdates(let payload): try payload.encode(to: encoder)
        case .locationAck(let payload): try payload.encode(to: encoder)
        case .startMonitoring(let payload): try payload.encode(to: encoder)
        case .stopMonitoring(let payload), .requestState(let payload): try payload.encode(to: encoder)
        case .regions(let payload): try payload.encode(to: encoder)
        case .audioSession(let payload): try payload.encode(to: encoder)
        case .openAudioStream(let payload): try payload.encode(to: encoder)
        case .audioStreamControl(let payload): try payload.encode(to: encoder)
        case .nowPlaying(let payload): try payload.encode(to: encoder)
        case .remoteCommand(let payload): try payload.encode(to: encoder)
        case .audio(let payload): try payload.encode(to: encoder)
        case .status, .bundles, .reload, .home, .lock, .unlock, .ps, .locationReady: break
        }
    }
}
