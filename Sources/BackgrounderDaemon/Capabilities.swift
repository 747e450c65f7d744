import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Logging
import ServiceLifecycle

/// The capabilities this daemon runs, held by their types: the control socket and the desktop
/// reach each one directly, and the core hears them all as ``AppCapability``. Beside them,
/// the parts of theirs the rest of the daemon reads (the audio service for `bgctl status`,
/// the desktop endpoints for what the desktop asks).
struct Capabilities: Sendable {
    let location: LocationCapability
    let audio: AudioCapability
    let scheduling: SchedulingCapability
    let transfers: TransferCapability
    let resources: ResourceCapability
    let notifications: NotificationCapability
    let sharing: SharingCapability

    /// PulseAudio, the audio socket, and the MPRIS players.
    let audioService: AudioService
    let players: MediaPlayers
    /// The UnifiedPush endpoint.
    let pushConnector: UnifiedPushConnector
    /// Notifications and consent prompts on the desktop.
    let notificationPresenter: DesktopNotificationPresenter
    /// People following notifications as they are delivered.
    let notificationFeed: NotificationFeed

    /// Every capability, in the order they hear life-cycle changes.
    var all: [any AppCapability] { [location, audio, scheduling, transfers, resources, notifications, sharing] }

    /// Makes every capability on the system layer: adding one is a target and a line here.
    static func make(_ configuration: DaemonConfiguration, on system: SystemParts, logger: Logger) throws
        -> Capabilities
    {
        let (store, supervisor, desktop) = (system.store, system.supervisor, system.desktop)
        let sharedFiles = SharedFiles(
            try store.sharedFiles(), appDirectories: FileIdentity.of(supervisor.appDirectories))
        let audioService = try AudioService(
            server: configuration.pulseServer,
            socketPath: AudioSocketServer.path(forControlSocket: configuration.socketPath),
            identify: { supervisor.owner(of: $0) }, sharedFiles: sharedFiles, logger: logger)
        let players = MediaPlayers(bus: desktop)
        let pushConnector = UnifiedPushConnector(bus: desktop, logger: logger)
        pushConnector.start()
        let presenter = DesktopNotificationPresenter(
            bus: desktop, fallback: LogNotificationPresenter(logger: logger, logPath: { supervisor.logPath(for: $0) }),
            logger: logger)
        presenter.start()
        let feed = NotificationFeed(logger: logger)
        let transferDirectory = configuration.stateDirectory + "/transfers"
        try PrivateDirectory.prepareOwn(transferDirectory, purpose: "background transfer", mode: 0o700)
        let transferFiles = TransferFiles(
            directory: transferDirectory, dataDirectory: { try supervisor.ownDataDirectory(for: $0) },
            identity: { try supervisor.appIdentity($0) })
        return Capabilities(
            location: LocationCapability(store: store, logger: logger),
            audio: AudioCapability(
                service: audioService, store: store, players: players,
                freezesBetweenRefills: configuration.freezesBetweenRefills),
            scheduling: SchedulingCapability(store: store, logger: logger, pushConnector: pushConnector),
            transfers: TransferCapability(
                store: store, files: transferFiles,
                client: try HTTPTransferClient(trustedCertificates: configuration.trustedCertificates), logger: logger),
            resources: ResourceCapability(controllers: system.controllers, limits: configuration.limits),
            notifications: NotificationCapability(store: store, presenter: presenter, feed: feed, logger: logger),
            sharing: SharingCapability(files: sharedFiles, store: store, musicDirectory: configuration.musicDirectory),
            audioService: audioService, players: players, pushConnector: pushConnector,
            notificationPresenter: presenter, notificationFeed: feed)
    }

    /// Hands each capability what it needs of another, through the contract's narrow
    /// protocols: location triggers go between notifications and location.
    @AppCoreActor
    func connect() {
        location.notificationTriggers = notifications
        notifications.regions = location
    }

    /// The services the capabilities run beside the core (the location service, which needs
    /// the core too, is made by the daemon: `bgctl status` reads it).
    func services(apps: AppManager) -> [any Service] {
        [audioService, AudioEventFeed(engine: audioService.engine, capability: audio, apps: apps)]
    }
}
