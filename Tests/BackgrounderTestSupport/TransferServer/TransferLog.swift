import BackgrounderCore

/// What a ``TransferServer`` was asked and answered, updated as bodies go out, and how many
/// body bytes it held in memory at once.
final class TransferLog: Sendable {
    private struct Contents {
        var requests: [TransferServer.Request] = []
        var uploads: [TransferServer.Upload] = []
        var buffered: Int64 = 0
        var bufferedPeak: Int64 = 0
    }

    private let contents = Locked(Contents())

    /// Adds a request as it arrives.
    /// - Returns: Its index, for ``update(_:_:)``.
    func begin(_ request: TransferServer.Request) -> Int {
        contents.withLock { contents in
            contents.requests.append(request)
            return contents.requests.count - 1
        }
    }

    func update(_ index: Int, _ change: (inout TransferServer.Request) -> Void) {
        contents.withLock { change(&$0.requests[index]) }
    }

    /// Marks a request ended by a closed connection, unless it had already ended.
    func closedEarly(_ index: Int) {
        update(index) { request in
            if request.outcome == .inProgress { request.outcome = .closedEarly }
        }
    }

    func add(_ upload: TransferServer.Upload) {
        contents.withLock { $0.uploads.append(upload) }
    }

    /// Counts body bytes read into memory (positive) or handed to the network (negative).
    func buffer(_ bytes: Int64) {
        contents.withLock { contents in
            contents.buffered += bytes
            contents.bufferedPeak = max(contents.bufferedPeak, contents.buffered)
        }
    }

    var requests: [TransferServer.Request] { contents.withLock { $0.requests } }
    var uploads: [TransferServer.Upload] { contents.withLock { $0.uploads } }
    var bufferedPeak: Int64 { contents.withLock { $0.bufferedPeak } }
}
