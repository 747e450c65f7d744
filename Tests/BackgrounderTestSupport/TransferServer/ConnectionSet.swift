import BackgrounderCore
import NIOCore

/// The connections open now, numbered from 1, so a shutdown can close every one of them
/// (keep-alive connections and stalled responses would otherwise outlive the server).
final class ConnectionSet: Sendable {
    private struct Contents {
        var open: [Int: any Channel] = [:]
        var accepted = 0
    }

    private let contents = Locked(Contents())

    /// Adds a new connection until it closes.
    /// - Returns: Its number.
    func add(_ channel: any Channel) -> Int {
        let number = contents.withLock { contents in
            contents.accepted += 1
            contents.open[contents.accepted] = channel
            return contents.accepted
        }
        channel.closeFuture.whenComplete { [self] _ in
            _ = contents.withLock { $0.open.removeValue(forKey: number) }
        }
        return number
    }

    /// Closes every connection open now.
    func closeAll() async {
        let channels = contents.withLock { Array($0.open.values) }
        for channel in channels {
            try? await channel.close()
        }
    }
}
