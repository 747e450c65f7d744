public import BackgrounderCore

/// A message the daemon sends: a reply to a request (carrying its `id`), or the greeting.
public struct DaemonMessage: Sendable, Hashable {
    /// What the daemon says.
    public enum Body: Sendable, Hashable {
        /// `VERSION`: the greeting sent as soon as a client connects, as gpsd does.
        case version(VersionInfo)
        /// `HELLO`: the answer to a client's hello, with what the daemon learned of the peer.
        case hello(HelloReply)
        /// `STATUS`: the daemon's state.
        case status(DaemonStatus)
        /// `BUNDLES`: every bundle, loaded or refused.
        case bundles(BundleList)
        /// `RELOAD`: the outcome of a rescan.
        case reload(ReloadResult)
        /// `ERROR`: why a request could not be served.
        case error(ProtocolError)
        /// `OK`: a request that changes something succeeded.
        case done(Done)
        /// `APPS`: every app and its state.
        case apps(AppList)
        /// `CAPABILITIES`: what each capability holds now.
        case capabilities(CapabilityStatusList)
        /// `CHECKIN`: the reply to an app's check-in.
        case checkedIn(CheckInReply)
        /// `TASK`: the reply to `BEGIN_TASK`.
        case task(TaskReference)
        /// `LIFECYCLE`: sent to an app when its state changes.
        case lifecycle(LifecycleNotice)
        /// `EXPIRE`: sent to an app when its tasks' time is nearly up.
        case expire(ExpireTasks)
        /// `EVENT`: sent to a running app when an event it registered for arrives.
        case event(EventNotice)
        /// `AUTHORIZATION`: an app's location authorization.
        case authorization(AuthorizationStatus)
        /// `LOCATIONS`: fixes and region events for an app.
        case locations(LocationBatch)
        /// `REGION_STATE`: the reply to `REGION_STATE`.
        case regionState(RegionStateReply)
        /// `REGIONS`: monitored regions.
        case regions(RegionList)
        /// `LOCATION_STATUS`: gpsd came or went, or the authorization changed.
        case locationStatus(LocationServiceStatus)
        /// `AUDIO_STREAM`: the reply to `AUDIO_STREAM_OPEN`.
        case audioStream(AudioStreamGrant)
        /// `AUDIO_INTERRUPTION`: an app's audio was interrupted, or the interruption ended.
        case audioInterruption(AudioInterruption)
        /// `AUDIO_ROUTE_CHANGE`: where an app's sound goes changed.
        case audioRouteChange(AudioRouteChange)
        /// `REMOTE_COMMAND`: a media command for an app.
        case remoteCommand(RemoteCommandRequest)
        /// `AUDIO_STATUS`: the reply to `AUDIO`.
        case audioStatus(AudioStatus)
        /// `PERMISSIONS`: the reply to `PERMISSIONS`.
        case permissions(PermissionList)
        /// `TASK_REQUESTS`: the reply to `PENDING_TASKS`.
        case taskRequests(TaskRequestList)
        /// `PUSH_TOKEN`: the reply to `REGISTER_PUSH`.
        case pushToken(PushToken)
        /// `PUSHED`: the reply to `PUSH`.
        case pushed(PushResult)
        /// `SCHEDULE`: the reply to `TASKS`.
        case schedule(ScheduleList)
        /// `BACKGROUND_TIME`: an app's background time changed.
        case backgroundTime(BackgroundTimeNotice)
        /// `MEMORY_WARNING`: memory is short; the app should free what it can.
        case memoryWarning(MemoryWarning)
        /// `TRANSFER`: the reply to `TRANSFER_CREATE`.
        case transfer(TransferInfo)
        /// `TRANSFER_LIST`: the reply to `TRANSFER_SESSION` and `TRANSFERS`.
        case transferList(TransferList)
        /// `TRANSFER_UPDATE`: a notice to an app whose session is attached: progress, a state change.
        case transferUpdate(TransferInfo)
        /// `DATA_DIRECTORY`: the reply to `DATA_DIRECTORY`.
        case dataDirectory(AppDataDirectory)
        /// `NOTIFICATION_AUTHORIZATION`: the reply to `NOTIFICATION_AUTHORIZATION`.
        case notificationAuthorization(NotificationAuthorizationStatus)
        /// `NOTIFICATIONS`: the reply to `NOTIFICATION_LIST` and `NOTIFICATIONS`.
        case notifications(NotificationsList)
        /// `NOTIFICATION_WILL_PRESENT`: a notification is due for an app in front.
        case notificationWillPresent(NotificationWillPresent)
        /// `NOTIFICATION_RESPONSE`: a person acted on one of the app's notifications.
        case notificationResponse(NotificationResponse)
        /// `IMPORTED`: the reply to `IMPORT`.
        case imported(ImportResult)
        /// `SHARED`: the reply to `SHARE`, `UNSHARE` and `SHARES`.
        case shared(SharedFileList)
        /// `NOTIFICATION_DELIVERED`: to a person following notifications, one was delivered.
        case notificationDelivered(DeliveredNotice)
        /// `PROMPTS`: the reply to `PROMPTS`.
        case prompts(ConsentPromptList)
        /// `MEDIA_LIBRARY`: the reply to `MEDIA_LIBRARY_AUTHORIZATION`.
        case mediaLibrary(MediaLibraryStatus)
    }

    /// The identifier of the request this answers.
    public var id: MessageID?
    /// The message.
    public var body: Body

    /// Creates a message.
    public init(id: MessageID? = nil, _ body: Body) {
        self.id = id
        self.body = body
    }

    /// The wire name of this message's class.
    public var className: String {
        Self.classes.parts(of: body)?.name ?? "UNLISTED(\(body))"
    }
}

/// `VERSION`: the daemon's release and protocol version.
public struct VersionInfo: Sendable, Hashable, Codable {
    /// Backgrounder's release.
    public var release: String
    /// The protocol's major version.
    public var `protocol`: Int
    /// The protocol's minor version.
    public var protocolMinor: Int

    /// The greeting for this build.
    public static let current = VersionInfo(
        release: BackgrounderVersion.release,
        protocol: ProtocolVersion.major,
        protocolMinor: ProtocolVersion.minor
    )
}

/// `HELLO` reply: the peer as the kernel reports it (`SO_PEERCRED`).
public struct HelloReply: Sendable, Hashable, Codable {
    /// The daemon's protocol major version.
    public var `protocol`: Int
    /// The peer's process id.
    public var pid: Int32
    /// The peer's user id.
    public var uid: UInt32

    /// Creates a hello reply.
    public init(protocol: Int = ProtocolVersion.major, pid: Int32, uid: UInt32) {
        self.protocol = `protocol`
        self.pid = pid
        self.uid = uid
    }
}

/// `BUNDLES` reply.
public struct BundleList: Sendable, Hashable, Codable {
    /// Loaded bundles first (by identifier), then refused ones (in scan order).
    public var bundles: [BundleEntry]

    /// Creates a list.
    public init(bundles: [BundleEntry]) {
        self.bundles = bundles
    }
}

/// One bundle in a `BUNDLES` reply.
public struct BundleEntry: Sendable, Hashable, Codable {
    /// `loaded` or `refused`.
    public enum Status: String, Sendable, Hashable, Codable {
        case loaded, refused
    }

    /// `CFBundleIdentifier`, for loaded bundles.
    public var id: BundleID?
    /// `CFBundleName`, for loaded bundles.
    public var name: String?
    /// The bundle directory (or, for a refusal, the file at fault).
    public var path: String
    /// Whether it loaded.
    public var status: Status
    /// Declared background modes, for loaded bundles.
    public var modes: [String]
    /// For a refusal: the key at fault.
    public var key: String?
    /// For a refusal: why.
    public var reason: String?
    /// Warnings that did not refuse the bundle, each `PATH: KEY: reason`.
    public var warnings: [String]

    /// An entry for a loaded bundle.
    public static func loaded(_ bundle: ValidatedBundle) -> BundleEntry {
        BundleEntry(
            id: bundle.manifest.bundleIdentifier,
            name: bundle.manifest.name,
            path: bundle.path,
            status: .loaded,
            modes: bundle.manifest.sortedModeNames + bundle.manifest.modesWithoutLinuxMeaning,
            key: nil,
            reason: nil,
            warnings: bundle.warnings.map(\.description)
        )
    }

    /// An entry for a refused bundle.
    public static func refused(_ problem: BundleProblem) -> BundleEntry {
        BundleEntry(
            id: nil,
            name: nil,
            path: problem.path,
            status: .refused,
            modes: [],
            key: problem.key,
            reason: problem.reason,
            warnings: []
        )
    }
}

/// `RELOAD` reply: what changed.
public struct ReloadResult: Sendable, Hashable, Codable {
    /// How many bundles are loaded now.
    public var loaded: Int
    /// How many were refused.
    public var refused: Int
    /// Identifiers that appeared.
    public var added: [String]
    /// Identifiers that went away.
    public var removed: [String]

    /// Creates a result.
    public init(loaded: Int, refused: Int, added: [String], removed: [String]) {
        self.loaded = loaded
        self.refused = refused
        self.added = added
        self.removed = removed
    }
}
