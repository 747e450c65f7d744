import BackgrounderCore

/// The watchdog's liveness check: asks the app core one question and waits a bounded time for
/// the answer.
///
/// Two things a plain "race the question against a timer in a task group" gets wrong when the
/// core truly hangs (a policy plug-in blocked in a system call on the core's actor): the group
/// waits for its children before it returns, so the check would hang with the core and never
/// say that it missed; and every later check would queue one more question behind the hung
/// one. Here the question runs in a task of its own that the check does not wait for, and a
/// question not answered yet is waited on again by the next check instead of asked anew.
package final class LivenessProbe<Answer: Sendable>: Sendable {
    private let ask: @Sendable () async -> Answer
    private let state = Locked(State())

    private struct State: ~Copyable {
        /// Whether a question is with the core.
        var asking = false
        /// The checks waiting for an answer, by number (so each one's timer resumes only it):
        /// one at a time from the watchdog loop, any number from `bgctl status`.
        var waiters: [UInt64: CheckedContinuation<Answer?, Never>] = [:]
        var checks: UInt64 = 0
    }

    /// A probe that asks `ask`.
    /// - Parameter ask: The question; it returns once the core has answered.
    package init(ask: @escaping @Sendable () async -> Answer) {
        self.ask = ask
    }

    /// How many checks are waiting for the core's answer now.
    package var waitingChecks: Int {
        state.withLock { $0.waiters.count }
    }

    /// The core's answer, or `nil` when it does not come within `limit`. A question the core
    /// has not answered yet is not asked again: its answer, when it comes, answers every check
    /// waiting then (an answer nobody waits for any more is dropped, and the next check asks
    /// anew).
    /// - Parameter limit: How long to wait.
    /// - Returns: The answer, or `nil` when it did not come in time.
    package func answer(within limit: Duration) async -> Answer? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Answer?, Never>) in
            let (check, startsQuestion) = state.withLock { state in
                state.checks += 1
                state.waiters[state.checks] = continuation
                defer { state.asking = true }
                return (state.checks, !state.asking)
            }
            if startsQuestion {
                Task { [self] in
                    let answer = await ask()
                    let waiters = self.state.withLock { state in
                        state.asking = false
                        let all = Array(state.waiters.values)
                        state.waiters = [:]
                        return all
                    }
                    for waiter in waiters { waiter.resume(returning: answer) }
                }
            }
            Task { [self] in
                try? await BootSleep.sleep(for: limit)
                let waiter = self.state.withLock { state in state.waiters.removeValue(forKey: check) }
                waiter?.resume(returning: nil)
            }
        }
    }
}
