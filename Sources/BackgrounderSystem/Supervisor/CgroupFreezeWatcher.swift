import BackgrounderCore
import BackgrounderProtocol
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for cgroup freezes to complete, on one thread of its own, so that the app core's
/// actor never blocks on the kernel.
///
/// Writing `1` to `cgroup.freeze` only asks: the kernel stops each task as it next runs, and
/// says `frozen 1` in `cgroup.events` when the last one has stopped (tens of microseconds for
/// an idle app; seconds, or never, for a task stuck in uninterruptible sleep). A change of
/// `cgroup.events` raises `POLLPRI` on a descriptor that has read it, so the thread sleeps in
/// poll(2) on every pending cgroup at once and wakes for a change, a new wait, a thaw, or the
/// nearest deadline; with nothing pending it sleeps with no timeout, costing no wakeups. It
/// starts with the first freeze.
final class CgroupFreezeWatcher: Sendable {
    /// How a wait ended.
    enum Outcome: Sendable, Equatable {
        /// `cgroup.events` says `frozen 1`.
        case frozen
        /// `cgroup.freeze` says `0` again (a thaw came first), or the cgroup is gone.
        case thawed
        /// Still not frozen at the deadline.
        case timedOut
    }

    /// The one watcher of the process: freezes of every app share its thread.
    static let shared = CgroupFreezeWatcher()

    private struct Waiter {
        let id: UInt64
        let cgroup: String
        /// `cgroup.events`, open: read before each poll, so a change after the read wakes it.
        let events: Int32
        let deadline: ContinuousClock.Instant
        let continuation: CheckedContinuation<Outcome, Never>
    }

    private struct State {
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var started = false
    }

    private let state = Locked(State())
    /// A socket pair whose second end wakes the thread for a new wait or a thaw.
    private let doorbell: (read: Int32, write: Int32)

    private init() {
        var descriptors: [Int32] = [-1, -1]
        // A socket pair, made close-on-exec and non-blocking at once (pipe2 is not in Swift's
        // Glibc): an app forked meanwhile must not inherit it.
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        if socketpair(AF_UNIX, type, 0, &descriptors) != 0 { descriptors = [-1, -1] }
        doorbell = (descriptors[0], descriptors[1])
    }

    /// Waits until the cgroup is frozen, thawed, or `limit` has passed, without blocking
    /// the caller's thread.
    /// - Parameters:
    ///   - cgroup: The cgroup directory, whose `cgroup.freeze` was just set to 1.
    ///   - limit: The longest wait.
    func waitUntilFrozen(_ cgroup: String, within limit: Duration) async -> Outcome {
        let deadline = ContinuousClock.now + limit
        guard doorbell.read >= 0 else { return await checkEveryMillisecond(cgroup, until: deadline) }
        let events = open(cgroup + "/cgroup.events", O_RDONLY | O_CLOEXEC)
        guard events >= 0 else { return .thawed }
        return await withCheckedContinuation { continuation in
            let start = state.withLock { state in
                state.nextID += 1
                state.waiters.append(
                    Waiter(
                        id: state.nextID, cgroup: cgroup, events: events, deadline: deadline,
                        continuation: continuation))
                defer { state.started = true }
                return !state.started
            }
            if start {
                startThread(named: "backgrounderd-freeze") { [self] in run() }
            } else {
                ringDoorbell()
            }
        }
    }

    /// Without a doorbell (no descriptor was left for it), the wait cannot hand itself
    /// to the thread: it looks every millisecond instead, still without blocking a thread.
    private func checkEveryMillisecond(_ cgroup: String, until deadline: ContinuousClock.Instant) async -> Outcome {
        while true {
            if CgroupFreezer.isFrozen(cgroup) { return .frozen }
            if !CgroupFreezer.isFreezeRequested(cgroup) { return .thawed }
            if ContinuousClock.now >= deadline { return .timedOut }
            try? await BootSleep.sleep(for: .milliseconds(1))
        }
    }

    /// Has the thread look again at once: a thaw settles the waits on its cgroup without
    /// changing `cgroup.events` when the freeze had not completed.
    func recheck() {
        if state.withLock({ !$0.waiters.isEmpty }) { ringDoorbell() }
    }

    private func ringDoorbell() {
        var byte: UInt8 = 1
        _ = write(doorbell.write, &byte, 1)
    }

    private func run() {
        while true {
            let pending = state.withLock { $0.waiters }
            var settled: [UInt64: Outcome] = [:]
            var descriptors = [pollfd(fd: doorbell.read, events: Int16(POLLIN), revents: 0)]
            let now = ContinuousClock.now
            for waiter in pending {
                if let outcome = Self.outcome(of: waiter, at: now) {
                    settled[waiter.id] = outcome
                } else {
                    descriptors.append(pollfd(fd: waiter.events, events: Int16(POLLPRI), revents: 0))
                }
            }
            if !settled.isEmpty {
                let finished = state.withLock { state in
                    let finished = state.waiters.filter { settled[$0.id] != nil }
                    state.waiters.removeAll { settled[$0.id] != nil }
                    return finished
                }
                for waiter in finished {
                    close(waiter.events)
                    waiter.continuation.resume(returning: settled[waiter.id] ?? .thawed)
                }
            }
            let nearest = pending.filter { settled[$0.id] == nil }.map(\.deadline).min()
            let timeout = nearest.map { Int32(clamping: max(0, ($0 - .now).wholeMicroseconds + 999) / 1000) } ?? -1
            _ = retryingInterrupted { poll(&descriptors, nfds_t(descriptors.count), timeout) }
            var drained = [UInt8](repeating: 0, count: 64)
            while read(doorbell.read, &drained, drained.count) > 0 {}
        }
    }

    /// How the wait ends now, or `nil` while it goes on. Reads `cgroup.events` through the
    /// waiter's descriptor, which arms its next `POLLPRI`.
    private static func outcome(of waiter: Waiter, at now: ContinuousClock.Instant) -> Outcome? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { pread(waiter.events, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return .thawed }
        let lines = String(decoding: buffer.prefix(count), as: UTF8.self).split(separator: "\n")
        if lines.contains("frozen 1") { return .frozen }
        if !CgroupFreezer.isFreezeRequested(waiter.cgroup) { return .thawed }
        return now >= waiter.deadline ? .timedOut : nil
    }
}
