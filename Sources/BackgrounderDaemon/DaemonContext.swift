import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation
import Synchronization

/// The daemon's shared parts, handed to every connection.
final class DaemonContext: Sendable {
    let configuration: DaemonConfiguration
    let registry: BundleRegistry
    let location: LocationService
    let audio: AudioService
    let store: StateStore
    let apps: AppManager
    /// What the system does for apps, by type.
    let capabilities: Capabilities
    let conditions: ConditionMonitor
    /// The session and system buses.
    let desktop: DesktopBus?
    let players: MediaPlayers?
    /// People following notifications as they are delivered.
    let notificationFeed: NotificationFeed?
    /// What the kernel is told of apps' shares (cgroup controllers, oom_score_adj).
    let resources: String
    let started = ContinuousClock.now
    let clientCount = Atomic<Int>(0)

    init(
        configuration: DaemonConfiguration,
        registry: BundleRegistry,
        location: LocationService,
        audio: AudioService,
        store: StateStore,
        apps: AppManager,
        capabilities: Capabilities,
        conditions: ConditionMonitor,
        resources: String = "oom_score_adj by state",
        desktop: DesktopBus? = nil,
        players: MediaPlayers? = nil,
        notificationFeed: NotificationFeed? = nil
    ) {
        self.notificationFeed = notificationFeed
        self.desktop = desktop
        self.players = players
        self.resources = resources
        self.apps = apps
        self.capabilities = capabilities
        self.conditions = conditions
        self.configuration = configuration
        self.registry = registry
        self.location = location
        self.audio = audio
        self.store = store
    }

    /// What `bgctl status` shows.
    func status() -> DaemonStatus {
        let now = ContinuousClock.now
        let gps = location.snapshot
        return DaemonStatus(
            pid: getpid(),
            uptimeSeconds: (now - started).seconds,
            socket: configuration.socketPath,
            stateDirectory: configuration.stateDirectory,
            bundles: registry.counts(),
            gpsd: gps.connection,
            pulseAudio: audio.connection,
            lastFix: gps.lastFix,
            lastFixAgeSeconds: gps.lastFixReceived.map { (now - $0).seconds },
            clients: clientCount.load(ordering: .relaxed),
            suspension: apps.mechanismName,
            policy: apps.policyName,
            storage: store.storageStatus,
            sandbox: apps.sandboxSummary,
            conditions: conditions.status,
            resources: resources,
            desktop: desktop?.status(mediaPlayers: players?.count ?? 0)
        )
    }
}
