import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers

/// The capabilities this daemon runs, held by their types: the control socket and the desktop
/// reach each one directly, and the core hears them all as ``AppCapability``.
struct Capabilities: Sendable {
    let location: LocationCapability
    let audio: AudioCapability
    let scheduling: SchedulingCapability
    let transfers: TransferCapability
    let resources: ResourceCapability
    let notifications: NotificationCapability
    let sharing: SharingCapability

    /// Every capability, in the order they hear life-cycle changes.
    var all: [any AppCapability] { [location, audio, scheduling, transfers, resources, notifications, sharing] }

    /// Hands each capability what it needs of another, through the contract's narrow
    /// protocols: location triggers go between notifications and location.
    @AppCoreActor
    func connect() {
        location.notificationTriggers = notifications
        notifications.regions = location
    }
}
