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
    let store: StateStore
    let apps: AppManager
    /// What the system does for apps, by type, with the parts of theirs others read.
    let capabilities: Capabilities
    let conditions: ConditionMonitor
    /// The session and system buses.
    let desktop: DesktopBus
    /// What the kernel is told of apps' shares (cgroup controllers, oom_score_adj).
    let resources: String
    let started = ContinuousClock.now
    let clientCount = Atomic<Int>(0)
    /// Asks the capabilities for their rows on the app core, waiting a bounded time: `bgctl
    /// status` asks right after `STATUS`, and a person reads it when the core hangs.
    private let capabilityStatus: LivenessProbe<[CapabilityStatus]>

    init(
        configuration: DaemonConfiguration, registry: BundleRegistry, location: LocationService, store: StateStore,
        apps: AppManager, capabilities: Capabilities, conditions: ConditionMonitor, desktop: DesktopBus,
        resources: String
    ) {
        self.configuration = configuration
        self.registry = registry
        self.location = location
        self.store = store
        self.apps = apps
        self.capabilities = capabilities
        self.conditions = conditions
        self.desktop = desktop
        self.resources = resources
        capabilityStatus = LivenessProbe { await apps.capabilityStatus() }
    }

    /// `CAPABILITIES`: what each capability says of itself on the app core, or `unavailable`
    /// when the core does not answer within 2 s.
    func capabilityRows() async throws(ProtocolError) -> CapabilityStatusList {
        guard let rows = await capabilityStatus.answer(within: .seconds(2)) else {
            throw ProtocolError(.unavailable, "the app core did not answer within 2 s")
        }
        return CapabilityStatusList(capabilities: rows)
    }

    /// What `bgctl status` shows, from the daemon's parts alone: it answers at once, even
    /// while the app core is busy or hung.
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
            pulseAudio: capabilities.audioService.connection,
            lastFix: gps.lastFix,
            lastFixAgeSeconds: gps.lastFixReceived.map { (now - $0).seconds },
            clients: clientCount.load(ordering: .relaxed),
            suspension: apps.mechanismName,
            policy: apps.policyName,
            storage: store.storageStatus,
            sandbox: apps.sandboxSummary,
            conditions: conditions.status,
            resources: resources,
            desktop: desktop.status(mediaPlayers: capabilities.players.count)
        )
    }
}
