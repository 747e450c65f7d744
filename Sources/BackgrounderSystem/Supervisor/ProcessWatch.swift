import BackgrounderCore
import BackgrounderProtocol
import CEpoll
import CSandbox

#if canImport(Glibc)
    import Glibc
#endif

/// One thread for every app process: each lead process's pidfd and each app's output pipe
/// sit in one epoll, so a thousand apps cost one thread, not two each (a reaper blocked in
/// `waitpid` and a log pump blocked in `read`).
///
/// An exit is told once the process is gone *and* its output has ended, so whoever hears of
/// it (`bgctl ps`, `bgctl logs`) finds the app's last words in its log; a child of the app
/// that outlives it and holds the pipe open delays the news by at most ``outputGrace``. The
/// thread sleeps in `epoll_wait` with no timeout unless such an exit is waiting.
///
/// Where the kernel has no pidfd (before Linux 5.3), a process is waited for by a thread of
/// its own, which hands the exit to the same bookkeeping.
package final class ProcessWatch: Sendable {
    /// The daemon's watch, started at first use.
    package static let shared = ProcessWatch()

    /// How long an exit waits for the end of its app's output.
    package let outputGrace: Duration

    private struct Watched {
        var pid: Int32
        var pidfd: Int32
        /// Whether this process is the daemon's child, to be reaped here (an adopted one is
        /// not: its parent was an earlier daemon).
        var reaps: Bool
        var log: AppLog?
        var onExit: @Sendable (ExitStatus) -> Void
        /// Set once the process is gone.
        var status: ExitStatus?
        /// When the exit is told even though the output has not ended.
        var deadline: ContinuousClock.Instant?
    }

    private struct State {
        var processes: [UInt64: Watched] = [:]
        /// Output pipes being copied, and the process each belongs to.
        var outputs: [UInt64: (log: AppLog, process: UInt64)] = [:]
        var nextToken: UInt64 = 1
    }

    private let poller: Int32
    private let doorbell: Int32
    private let state = Locked(State())
    private static let doorbellToken: UInt64 = 0

    /// Starts the watching thread.
    /// - Parameter outputGrace: How long an exit waits for its app's output to end.
    package init(outputGrace: Duration = .seconds(1)) {
        self.outputGrace = outputGrace
        poller = bg_epoll_create()
        doorbell = bg_eventfd_create()
        precondition(poller >= 0 && doorbell >= 0, "epoll: \(String(cString: strerror(errno)))")
        _ = bg_epoll_add(poller, doorbell, Self.doorbellToken)
        startThread(named: "process-watch") { [self] in run() }
    }

    /// Watches a process the daemon started until it exits, copying its output to its log.
    /// - Parameters:
    ///   - pid: The child, which only this watch reaps.
    ///   - log: Its output, whose write end the daemon has already released.
    ///   - onExit: Called once, on the watching thread, with the exit status.
    package func watchChild(_ pid: Int32, log: AppLog?, onExit: @escaping @Sendable (ExitStatus) -> Void) {
        let pidfd = bg_pidfd_open(pid)
        let token = register(pid: pid, pidfd: pidfd, reaps: true, log: log, onExit: onExit)
        guard pidfd < 0 else { return }
        startThread(named: "reaper-\(pid)") { [self] in
            var status: Int32 = 0
            _ = retryingInterrupted { waitpid(pid, &status, 0) }
            exited(token, status: ExitStatus(waitStatus: status))
        }
    }

    /// Watches a process an earlier run of the daemon started, through a pidfd the caller
    /// opened (and hands over), until it exits; its status is not the daemon's to read.
    package func watchAdopted(
        _ pid: Int32, pidfd: Int32, log: AppLog?, onExit: @escaping @Sendable (ExitStatus) -> Void
    ) {
        register(pid: pid, pidfd: pidfd, reaps: false, log: log, onExit: onExit)
    }

    /// How many processes and output pipes are watched (for tests).
    package var counts: (processes: Int, outputs: Int) {
        state.withLock { ($0.processes.count, $0.outputs.count) }
    }

    @discardableResult
    private func register(
        pid: Int32, pidfd: Int32, reaps: Bool, log: AppLog?, onExit: @escaping @Sendable (ExitStatus) -> Void
    ) -> UInt64 {
        state.withLock { state in
            let process = state.nextToken
            state.nextToken += 2
            state.processes[process] = Watched(
                pid: pid, pidfd: pidfd, reaps: reaps, log: log, onExit: onExit, status: nil, deadline: nil)
            if pidfd >= 0 { _ = bg_epoll_add(poller, pidfd, process) }
            if let log, !log.outputEnded {
                // Process tokens are odd and output tokens even, so neither is the doorbell's 0.
                state.outputs[process + 1] = (log, process)
                _ = bg_epoll_add(poller, log.readDescriptor, process + 1)
            }
            return process
        }
    }

    private func run() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
        var tokens = [UInt64](repeating: 0, count: 64)
        while true {
            let count = tokens.withUnsafeMutableBufferPointer { tokens in
                bg_epoll_wait(poller, tokens.baseAddress, Int32(tokens.count), timeoutMilliseconds())
            }
            if count < 0 {
                guard errno == EINTR else { fatalError("epoll_wait: \(String(cString: strerror(errno)))") }
                continue
            }
            for token in tokens.prefix(Int(count)) {
                if token == Self.doorbellToken {
                    var value: UInt64 = 0
                    _ = read(doorbell, &value, 8)
                } else if token % 2 == 1 {
                    processEnded(token)
                } else {
                    outputReady(token, buffer: buffer)
                }
            }
            tellOverdue()
        }
    }

    /// How long to sleep: until the earliest exit that waits for its output, else for ever.
    private func timeoutMilliseconds() -> Int32 {
        let earliest = state.withLock { state in state.processes.values.compactMap(\.deadline).min() }
        guard let earliest else { return -1 }
        let left = ContinuousClock.now.duration(to: earliest)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        return Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, Int64(Int32.max)))
    }

    /// A pidfd became readable: the process is gone. A child is reaped here for its status.
    private func processEnded(_ token: UInt64) {
        guard let watched = state.withLock({ $0.processes[token] }) else { return }
        _ = bg_epoll_remove(poller, watched.pidfd)
        close(watched.pidfd)
        var status = ExitStatus.unknown
        if watched.reaps {
            var raw: Int32 = 0
            if retryingInterrupted({ waitpid(watched.pid, &raw, WNOHANG) }) == watched.pid {
                status = ExitStatus(waitStatus: raw)
            }
        }
        exited(token, status: status)
    }

    /// Records an exit and tells it now if the output has ended, else at the grace's end.
    private func exited(_ token: UInt64, status: ExitStatus) {
        let tell: Watched? = state.withLock { state in
            guard var watched = state.processes[token] else { return nil }
            watched.status = status
            if watched.log?.outputEnded ?? true {
                state.processes[token] = nil
                return watched
            }
            watched.deadline = .now + outputGrace
            state.processes[token] = watched
            return nil
        }
        if let tell {
            tell.onExit(status)
        } else {
            // From a fallback reaper thread, the watching thread must learn the new deadline.
            var one: UInt64 = 1
            _ = write(doorbell, &one, 8)
        }
    }

    /// An output pipe is readable: copy it; at its end, tell an exit that waited for it.
    private func outputReady(_ token: UInt64, buffer: UnsafeMutableRawBufferPointer) {
        guard let output = state.withLock({ $0.outputs[token] }) else { return }
        guard output.log.copyAvailable(using: buffer) else { return }
        _ = bg_epoll_remove(poller, output.log.readDescriptor)
        output.log.endOutput()
        let tell: Watched? = state.withLock { state in
            state.outputs[token] = nil
            guard let watched = state.processes[output.process], watched.status != nil else { return nil }
            state.processes[output.process] = nil
            return watched
        }
        if let tell, let status = tell.status { tell.onExit(status) }
    }

    /// Tells the exits whose grace has passed; their output goes on being copied.
    private func tellOverdue() {
        let now = ContinuousClock.now
        let due: [Watched] = state.withLock { state in
            let tokens = state.processes.filter { $0.value.deadline.map { $0 <= now } ?? false }.keys
            return tokens.compactMap { state.processes.removeValue(forKey: $0) }
        }
        for watched in due { watched.onExit(watched.status ?? .unknown) }
    }
}
