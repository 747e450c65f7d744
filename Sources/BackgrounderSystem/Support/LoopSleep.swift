package import BackgrounderCore
import NIOCore
import NIOPosix

/// Sleeps on swift-nio's event loops (a timer in their epoll set) rather than with
/// `Task.sleep`, which on Linux arms a libdispatch timer and resumes on a libdispatch worker
/// thread. The first such worker starts libdispatch's pool monitor, a timer that fires every
/// second for the rest of the process: one sleep, once, and the idle daemon would wake once a
/// second for ever (docs/decisions/0020-idle-wakeups.md). Every sleep in the daemon's targets
/// goes through here; `ArchitectureTests` refuses `Task.sleep` in them.
package enum LoopSleep {
    /// Returns after `duration`, or throws `CancellationError` when the task is cancelled first.
    package static func sleep(for duration: Duration) async throws {
        try await sleep(until: .now + duration)
    }

    /// Returns at `deadline`, or throws `CancellationError` when the task is cancelled first.
    package static func sleep(until deadline: ContinuousClock.Instant) async throws {
        let waiter = Waiter()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard waiter.hold(continuation) else {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                let remaining = max(.zero, deadline - .now)
                let scheduled = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(
                    in: .nanoseconds(remaining.wholeNanoseconds)
                ) { () -> Void in waiter.take()?.resume() }
                waiter.scheduled(scheduled)
            }
        } onCancel: {
            waiter.cancel()
        }
    }

    /// The one continuation of a sleep, resumed exactly once: by the timer or by cancellation,
    /// whichever comes first.
    private final class Waiter: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, any Error>?
            var timer: Scheduled<Void>?
            var cancelled = false
        }

        private let state = Locked(State())

        /// Keeps the continuation; `false` when the task was cancelled already.
        func hold(_ continuation: CheckedContinuation<Void, any Error>) -> Bool {
            state.withLock { state in
                guard !state.cancelled else { return false }
                state.continuation = continuation
                return true
            }
        }

        /// Keeps the timer, or cancels it when the task was cancelled meanwhile.
        func scheduled(_ timer: Scheduled<Void>) {
            let cancelled = state.withLock { state in
                state.timer = timer
                return state.cancelled
            }
            if cancelled { timer.cancel() }
        }

        /// The continuation, once.
        func take() -> CheckedContinuation<Void, any Error>? {
            state.withLock { state in
                defer { state.continuation = nil }
                return state.continuation
            }
        }

        func cancel() {
            let (continuation, timer) = state.withLock { state in
                state.cancelled = true
                defer { state.continuation = nil }
                return (state.continuation, state.timer)
            }
            timer?.cancel()
            continuation?.resume(throwing: CancellationError())
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (clamped to Int64).
    fileprivate var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? (seconds < 0 ? .min : .max)
            : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
