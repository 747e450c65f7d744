import BackgrounderCore
import BackgrounderProtocol
import CBootTimer

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's one way to wait, instead of `Task.sleep`.
///
/// On Linux `Task.sleep` arms a libdispatch timer and resumes on a libdispatch worker thread,
/// and the first such worker starts libdispatch's pool monitor, a timer that fires every
/// second for the rest of the process: one sleep, once, and the idle daemon would wake once a
/// second for ever (docs/decisions/0020-idle-wakeups.md). Here every sleep is an entry in one
/// table, served by one thread on one `timerfd` armed for the earliest deadline only, so
/// nothing wakes without a deadline due. The timer counts on `CLOCK_BOOTTIME`, the clock
/// `ContinuousClock` reads on Linux: time the machine spent suspended counts, so a deadline
/// that passed during a suspend fires on resume (swift-nio's timers use CLOCK_MONOTONIC, which
/// stops while suspended). `ArchitectureTests` refuses `Task.sleep` in the daemon's targets.
package enum BootSleep {
    /// Returns after `duration`, or throws `CancellationError` when the task is cancelled first.
    package static func sleep(for duration: Duration) async throws {
        try await sleep(until: .now + duration)
    }

    /// Returns at `deadline`, or throws `CancellationError` when the task is cancelled first.
    package static func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await BootTimer.shared.sleep(until: deadline)
    }
}

/// The table of sleeps and the thread that ends them.
final class BootTimer: Sendable {
    static let shared = BootTimer()

    private struct Sleeper {
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Table {
        var sleepers: [UInt64: Sleeper] = [:]
        /// Sleeps cancelled before they were entered.
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
        var started = false
    }

    private let table = Locked(Table())
    private let timer: Int32
    private let changed: WakeupPipe?

    /// The daemon has one, ``shared``; a test makes its own, so that the sleeps it counts are
    /// its own and not those of tests running beside it.
    init() {
        timer = boot_timer_create()
        changed = try? WakeupPipe()
    }

    func sleep(until deadline: ContinuousClock.Instant) async throws {
        let id = table.withLock { table in
            defer { table.nextID += 1 }
            return table.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enter(id, Sleeper(deadline: deadline, continuation: continuation))
            }
        } onCancel: {
            cancel(id)
        }
    }

    /// Sleeps in the table now, for tests.
    var count: Int { table.withLock { $0.sleepers.count } }

    private func enter(_ id: UInt64, _ sleeper: Sleeper) {
        let start = table.withLock { table -> Bool? in
            if table.cancelled.remove(id) != nil { return nil }
            table.sleepers[id] = sleeper
            defer { table.started = true }
            return !table.started
        }
        guard let start else {
            sleeper.continuation.resume(throwing: CancellationError())
            return
        }
        guard timer >= 0, let changed else {
            // No timerfd or pipe (descriptors exhausted when the first sleep came): a thread
            // for this sleep alone, ended by its deadline or, sooner, by cancellation.
            let remaining = max(.zero, sleeper.deadline - .now)
            startThread(named: "timer") { [self] in
                var left = timespec(
                    tv_sec: Int(remaining.components.seconds),
                    tv_nsec: Int(remaining.components.attoseconds / 1_000_000_000))
                var request = left
                while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
                cancel(id, with: nil)
            }
            return
        }
        if start { startThread(named: "timers") { [self] in run(changed) } }
        changed.wake()
    }

    /// Ends sleep `id` with `error` (or normally with `nil`), once; a sleep not entered yet is
    /// remembered as cancelled.
    private func cancel(_ id: UInt64, with error: (any Error)? = CancellationError()) {
        let sleeper = table.withLock { table in
            guard let sleeper = table.sleepers.removeValue(forKey: id) else {
                if error != nil { table.cancelled.insert(id) }
                return Sleeper?.none
            }
            return sleeper
        }
        guard let sleeper else { return }
        if let error { sleeper.continuation.resume(throwing: error) } else { sleeper.continuation.resume() }
        changed?.wake()
    }

    /// The thread: ends what is due, arms the timer for the earliest deadline left, and sleeps
    /// in poll(2) until the timer fires or the table changes.
    private func run(_ changed: WakeupPipe) {
        var expirations: UInt64 = 0
        while true {
            _ = read(timer, &expirations, MemoryLayout<UInt64>.size)
            changed.drain()
            let now = ContinuousClock.now
            let (due, earliest) = table.withLock { table in
                let due = table.sleepers.filter { $0.value.deadline <= now }
                for id in due.keys { table.sleepers[id] = nil }
                return (Array(due.values), table.sleepers.values.map(\.deadline).min())
            }
            for sleeper in due { sleeper.continuation.resume() }
            arm(earliest.map { max(.nanoseconds(1), $0 - now) })
            var descriptors = [
                pollfd(fd: timer, events: Int16(POLLIN), revents: 0),
                pollfd(fd: changed.readDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            _ = retryingInterrupted { poll(&descriptors, 2, -1) }
        }
    }

    /// Arms the timer to fire once after `interval`, or disarms it.
    private func arm(_ interval: Duration?) {
        let (seconds, attoseconds) = interval?.components ?? (0, 0)
        _ = boot_timer_arm(timer, seconds, Int(attoseconds / 1_000_000_000))
    }
}
