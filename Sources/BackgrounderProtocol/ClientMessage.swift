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
        case open(OpenApp)
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
        /// Asks each capability what it holds now (protocol 1.10).
        case capabilities
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
        /// An app answers a media command the daemon sent it.
        case remoteCommandStatus(RemoteCommandStatusReport)
        /// Asks for the audio engine's sessions and streams.
        case audio(AudioQuery)
        /// A person sends an app's playback to another output.
        case audioRoute(AudioRouteRequest)
        /// Asks for the grants people made (location, microphone).
        case permissions(PermissionsQuery)
        /// `SET_FETCH_INTERVAL`: an app's minimum background fetch interval.
        case setFetchInterval(FetchIntervalRequest)
        /// `COMPLETE`: an app ends an event window.
        case complete(WindowCompletion)
        /// `REGISTER_TASK`: an app registers a task identifier's launch handler.
        case registerTask(TaskRegistration)
        /// `SUBMIT_TASK`: an app submits a task request.
        case submitTask(TaskSubmission)
        /// `CANCEL_TASKS`: an app cancels one or all of its task requests.
        case cancelTasks(TaskCancellation)
        /// `PENDING_TASKS`: an app asks for its pending task requests.
        case pendingTasks
        /// `REGISTER_PUSH`: an app asks for its device token.
        case registerPush
        /// `UNREGISTER_PUSH`: an app revokes its device token.
        case unregisterPush
        /// `PUSH`: a remote notification for an app.
        case push(PushRequest)
        /// `TASKS`: a person asks what is scheduled.
        case tasks(ScheduleQuery)
        /// `SIMULATE_TASK`: launch a pending task now.
        case simulateTask(TaskDebugRequest)
        /// `EXPIRE_TASK`: expire a running task now.
        case expireTask(TaskDebugRequest)
        /// `TRANSFER_CREATE`: an app hands a download or upload to the system.
        case createTransfer(TransferSubmission)
        /// `TRANSFER_CANCEL`: an app cancels one of its transfers.
        case cancelTransfer(TransferReference)
        /// `TRANSFER_SESSION`: an app (re)creates a background session and hears its transfers.
        case transferSession(TransferSessionRequest)
        /// `TRANSFER_ACK`: an app heard a finished transfer (and moved its file).
        case acknowledgeTransfer(TransferReference)
        /// `TRANSFERS`: a person lists transfers.
        case transfers(TransferQuery)
        /// `DATA_DIRECTORY`: a person asks where an app's data directory is (a sample's command line).
        case dataDirectory(AppReference)
        /// `NOTIFICATION_AUTHORIZATION`: an app asks whether it may post notifications.
        case requestNotificationAuthorization(NotificationAuthorizationRequest)
        /// `NOTIFICATION_ADD`: an app adds (or replaces) a notification request.
        case addNotification(NotificationAddRequest)
        /// `NOTIFICATION_LIST`: an app lists its pending requests or delivered notifications.
        case listNotifications(NotificationListQuery)
        /// `NOTIFICATION_REMOVE`: an app removes pending requests or delivered notifications.
        case removeNotifications(NotificationRemoval)
        /// `NOTIFICATION_PRESENTATION`: an app in front says how to show a notification.
        case notificationPresentation(NotificationPresentation)
        /// `NOTIFICATIONS`: a person lists an app's notifications.
        case notifications(NotificationsQuery)
        /// `NOTIFICATION_ACTIVATE`: a person (or the desktop) acts on a delivered notification.
        case activateNotification(NotificationActivation)
        /// `IMPORT`: a person gives an app files, copied by the daemon into its data directory.
        case importFiles(ImportRequest)
        /// `ADOPT_BUNDLE`: a person says the bundle held for an identifier is the app that was
        /// removed, so it keeps the app's data and grants.
        case adoptBundle(AppReference)
        /// `SHARE`: a person lets an app read files or folders of theirs where they are.
        case share(ShareRequest)
        /// `UNSHARE`: a person takes back what they shared with an app.
        case unshare(UnshareRequest)
        /// `SHARES`: a person lists what they shared with an app.
        case shares(AppReference)
        /// `SIMULATE_LOCATION`: a person gives the device positions, as from the receiver.
        case simulateLocation(SimulatedLocation)
        /// `NOTIFICATIONS_FOLLOW`: a person follows notifications as they are delivered.
        case followNotifications(NotificationsFollow)
        /// `PROMPTS`: a person lists the requests waiting for an answer.
        case prompts
        /// `ANSWER`: a person answers one.
        case answer(ConsentAnswer)
        /// `MEDIA_LIBRARY_AUTHORIZATION`: an app asks whether it may read the person's music.
        case requestMediaLibraryAuthorization
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
    public static let classNames = classes.names

    /// The wire name of this request's class.
    public var className: String {
        Self.classes.parts(of: body)?.name ?? "UNLISTED(\(body))"
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
    /// Every request class: the one place a wire name is written. A new request is a `Body`
    /// case and a line here; see ``MessageClasses`` for how coding finds the line.
    static let classes = MessageClasses<Body>([
        MessageClass("HELLO", Body.hello),
        MessageClass("STATUS", Body.status),
        MessageClass("BUNDLES", Body.bundles),
        MessageClass("RELOAD", Body.reload),
        MessageClass("OPEN", Body.open),
        MessageClass("HOME", Body.home),
        MessageClass("LOCK", Body.lock),
        MessageClass("UNLOCK", Body.unlock),
        MessageClass("QUIT", Body.quit),
        MessageClass("PS", Body.ps),
        MessageClass("CAPABILITIES", Body.capabilities),
        MessageClass("CHECKIN", Body.checkIn),
        MessageClass("BEGIN_TASK", Body.beginTask),
        MessageClass("END_TASK", Body.endTask),
        MessageClass("WAKE", Body.wake),
        MessageClass("MEMORY_PRESSURE", Body.memoryPressure),
        MessageClass("AUTHORIZE", Body.authorize),
        MessageClass("LOCATION_AUTHORIZATION", Body.requestAuthorization),
        MessageClass("LOCATION_UPDATES", Body.locationUpdates),
        MessageClass("LOCATION_READY", Body.locationReady),
        MessageClass("LOCATION_ACK", Body.locationAck),
        MessageClass("REGION_START", Body.startMonitoring),
        MessageClass("REGION_STOP", Body.stopMonitoring),
        MessageClass("REGION_STATE", Body.requestState),
        MessageClass("REGIONS", Body.regions),
        MessageClass("AUDIO_SESSION", Body.audioSession),
        MessageClass("AUDIO_STREAM_OPEN", Body.openAudioStream),
        MessageClass("AUDIO_STREAM_CONTROL", Body.audioStreamControl),
        MessageClass("NOW_PLAYING", Body.nowPlaying),
        MessageClass("REMOTE_COMMAND", Body.remoteCommand),
        MessageClass("REMOTE_COMMAND_STATUS", Body.remoteCommandStatus),
        MessageClass("AUDIO", Body.audio),
        MessageClass("AUDIO_ROUTE", Body.audioRoute),
        MessageClass("PERMISSIONS", Body.permissions),
        MessageClass("SET_FETCH_INTERVAL", Body.setFetchInterval),
        MessageClass("COMPLETE", Body.complete),
        MessageClass("REGISTER_TASK", Body.registerTask),
        MessageClass("SUBMIT_TASK", Body.submitTask),
        MessageClass("CANCEL_TASKS", Body.cancelTasks),
        MessageClass("PENDING_TASKS", Body.pendingTasks),
        MessageClass("REGISTER_PUSH", Body.registerPush),
        MessageClass("UNREGISTER_PUSH", Body.unregisterPush),
        MessageClass("PUSH", Body.push),
        MessageClass("TASKS", Body.tasks),
        MessageClass("SIMULATE_TASK", Body.simulateTask),
        MessageClass("EXPIRE_TASK", Body.expireTask),
        MessageClass("TRANSFER_CREATE", Body.createTransfer),
        MessageClass("TRANSFER_CANCEL", Body.cancelTransfer),
        MessageClass("TRANSFER_SESSION", Body.transferSession),
        MessageClass("TRANSFER_ACK", Body.acknowledgeTransfer),
        MessageClass("TRANSFERS", Body.transfers),
        MessageClass("DATA_DIRECTORY", Body.dataDirectory),
        MessageClass("NOTIFICATION_AUTHORIZATION", Body.requestNotificationAuthorization),
        MessageClass("NOTIFICATION_ADD", Body.addNotification),
        MessageClass("NOTIFICATION_LIST", Body.listNotifications),
        MessageClass("NOTIFICATION_REMOVE", Body.removeNotifications),
        MessageClass("NOTIFICATION_PRESENTATION", Body.notificationPresentation),
        MessageClass("NOTIFICATIONS", Body.notifications),
        MessageClass("NOTIFICATION_ACTIVATE", Body.activateNotification),
        MessageClass("IMPORT", Body.importFiles),
        MessageClass("ADOPT_BUNDLE", Body.adoptBundle),
        MessageClass("SHARE", Body.share),
        MessageClass("UNSHARE", Body.unshare),
        MessageClass("SHARES", Body.shares),
        MessageClass("SIMULATE_LOCATION", Body.simulateLocation),
        MessageClass("NOTIFICATIONS_FOLLOW", Body.followNotifications),
        MessageClass("PROMPTS", Body.prompts),
        MessageClass("MEDIA_LIBRARY_AUTHORIZATION", Body.requestMediaLibraryAuthorization),
        MessageClass("ANSWER", Body.answer),
    ])

    public init(from decoder: any Decoder) throws {
        let header = try decoder.container(keyedBy: MessageHeaderKeys.self)
        guard let className = try header.decodeIfPresent(String.self, forKey: .class) else {
            throw ProtocolError(.missingClass, "every message needs a \"class\" field")
        }
        id = try? header.decodeIfPresent(MessageID.self, forKey: .id)
        guard let messageClass = Self.classes.named(className) else {
            throw ProtocolError(
                .unknownClass,
                "unknown class '\(className)' (known: \(Self.classNames.joined(separator: ", ")))"
            )
        }
        body = try messageClass.decode(decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try Self.classes.encode(body, id: id, to: encoder)
    }
}

/// A request as it was read, with its class's wire name as it came: the daemon names the
/// class in every refusal and in what it tells capabilities, and ``ClientMessage/className``
/// finds it again with `Mirror`, a measurable share of a round trip.
public struct ReceivedClientMessage: Sendable, Decodable {
    /// The request.
    public var message: ClientMessage
    /// Its class's wire name (`HELLO`).
    public var className: String

    public init(from decoder: any Decoder) throws {
        message = try ClientMessage(from: decoder)
        // Read again from the same object: a name that decoded is a listed class's own.
        className = try decoder.container(keyedBy: MessageHeaderKeys.self).decode(String.self, forKey: .class)
    }
}
