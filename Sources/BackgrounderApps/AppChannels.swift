import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderSystem
package import Logging
package import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The connections the daemon hands apps at launch.
///
/// The daemon makes a socketpair for every launch: one end becomes the app's descriptor 3
/// (`BACKGROUNDER_FD`), the other is served here like a control connection that speaks for
/// that launch of that app and nothing else. Identity is established by the daemon, not
/// claimed: a child that exits, a descriptor passed on, or a reused pid cannot turn it
/// into anyone else, and it closes when the app exits.
package final class AppChannels: Sendable {
    /// Admits a channel and sets up its pipeline for the launch it speaks for (the control
    /// server's, bound once it exists); the future fails when the connection is refused.
    package typealias Configure = @Sendable (any Channel, AppLaunch) -> EventLoopFuture<Void>

    private let group: any EventLoopGroup
    private let logger: Logger
    private let configure = Locked<
        (configure: Configure, writeBufferWaterMark: ChannelOptions.Types.WriteBufferWaterMark)?
    >(nil)
    private let open = Locked<[AppLaunch: any Channel]>([:])

    package init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger) {
        self.group = group
        self.logger = logger
    }

    /// Binds the pipeline setup; the control server calls this once as it is made, before
    /// any app can be launched.
    package func serve(
        writeBufferWaterMark: ChannelOptions.Types.WriteBufferWaterMark, with configure: @escaping Configure
    ) {
        self.configure.withLock { $0 = (configure, writeBufferWaterMark) }
    }

    /// A connected pair: the daemon's end and the app's end, both close-on-exec.
    package static func makePair() throws -> (daemon: Int32, app: Int32) {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw DaemonError(.socket, path: "socketpair", String(cString: strerror(errno)))
        }
        return (ends[0], ends[1])
    }

    /// Serves the daemon's end of a launch's pair.
    package func adopt(_ descriptor: Int32, for launch: AppLaunch) {
        guard let (configure, writeBufferWaterMark) = configure.withLock({ $0 }) else {
            logger.error("no control server to serve \(launch)'s connection; closing it")
            Glibc.close(descriptor)
            return
        }
        ClientBootstrap(group: group)
            .channelOption(.writeBufferWaterMark, value: writeBufferWaterMark)
            .channelInitializer { channel in
                configure(channel, launch)
            }
            .withConnectedSocket(descriptor)
            .whenComplete { [self] result in
                switch result {
                case .success(let channel):
                    self.open.withLock { $0[launch] = channel }
                    channel.closeFuture.whenComplete { _ in _ = self.open.withLock { $0.removeValue(forKey: launch) } }
                case .failure(let error):
                    logger.error("cannot serve \(launch)'s connection: \(error)")
                }
            }
    }

    /// Closes a launch's connection (the app exited): whoever still holds the other end,
    /// a child it left or a process it passed the descriptor to, hears the end of it.
    package func close(for launch: AppLaunch) {
        open.withLock { $0.removeValue(forKey: launch) }?.close(promise: nil)
    }
}
