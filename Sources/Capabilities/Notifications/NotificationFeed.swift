import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
package import Logging
package import NIOCore

/// The people following notifications as they are delivered (`bgctl notifications
/// --follow`): each delivery is written to every follower's connection as a
/// `NOTIFICATION_DELIVERED` line. A follower that stops reading is dropped once its unread
/// notices pass ``maximumUnreadBytes``; the others are not held up.
package final class NotificationFeed: Sendable {
    /// What one follower may leave unread before it is disconnected.
    package static let maximumUnreadBytes = 1 << 20

    private struct Follower {
        let channel: any Channel
        /// Only this app's notifications; all when `nil`.
        let bundle: BundleID?
    }

    private let followers = Locked<[ObjectIdentifier: Follower]>([:])
    private let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    /// Sends a connection every notification delivered from now on (one app's, or all),
    /// until it closes.
    package func follow(_ channel: any Channel, bundle: BundleID?) {
        let key = ObjectIdentifier(channel)
        followers.withLock { $0[key] = Follower(channel: channel, bundle: bundle) }
        channel.closeFuture.whenComplete { [weak self] _ in
            _ = self?.followers.withLock { $0.removeValue(forKey: key) }
        }
    }

    /// How many connections follow now.
    package var count: Int { followers.withLock { $0.count } }

    /// Tells the followers of a delivered notification.
    package func publish(_ notice: DeliveredNotice) {
        let listening = followers.withLock { $0.values.filter { $0.bundle == nil || $0.bundle == notice.bundle } }
        guard !listening.isEmpty else { return }
        let line: [UInt8]
        do {
            line = Array(try LineCodec().encode(DaemonMessage(.notificationDelivered(notice))))
        } catch {
            logger.error("cannot encode a notification for its followers: \(error)")
            return
        }
        for follower in listening {
            let channel = follower.channel
            channel.eventLoop.execute {
                let unread = (try? channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
                guard unread + line.count <= Self.maximumUnreadBytes else {
                    channel.close(promise: nil)
                    return
                }
                channel.writeAndFlush(channel.allocator.buffer(bytes: line), promise: nil)
            }
        }
    }
}
