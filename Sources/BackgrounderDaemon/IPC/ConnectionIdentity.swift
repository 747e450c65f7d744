import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import NIOCore

/// Who a connection speaks for: nobody in particular, or the app that checked in on it.
final class ConnectionIdentity: Sendable {
    /// The connection's channel, where the daemon sends an app its notices.
    let channel: any Channel
    private let checkedIn = Locked<BundleID?>(nil)

    init(channel: any Channel) {
        self.channel = channel
    }

    /// The bundle identifier the connection checked in as, once the daemon believed it.
    var bundle: BundleID? {
        get { checkedIn.withLock { $0 } }
        set { checkedIn.withLock { $0 = newValue } }
    }
}
