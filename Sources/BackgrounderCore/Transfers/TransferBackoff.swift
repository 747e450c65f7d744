/// How long a transfer waits before its next attempt after a transient failure: exponential
/// from ``SchedulingPolicy/transferRetryDelay``, doubling each retry, never above
/// ``SchedulingPolicy/transferRetryCap``, with jitter so that many transfers failing together
/// (a server restarting, a network coming back) do not all come back together.
///
/// The randomness is injected, so tests draw the same delays every run.
public struct TransferBackoff: Sendable, Hashable {
    /// How the delay is spread below its exponential ceiling (the AWS architecture blog's names).
    public enum Jitter: String, Sendable, Hashable, Codable, CaseIterable {
        /// Exactly the ceiling: for tests and for reading the schedule.
        case none
        /// Anywhere from zero to the ceiling: spreads best, may retry at once.
        case full
        /// Half the ceiling plus anywhere up to the other half: never sooner than half.
        case equal
    }

    /// The first retry's ceiling.
    public var base: Duration
    /// The largest ceiling, and the most a server's `Retry-After` may make a transfer wait.
    public var cap: Duration
    /// The spread.
    public var jitter: Jitter

    /// The backoff of a policy.
    public init(policy: SchedulingPolicy, jitter: Jitter = .full) {
        self.init(base: policy.transferRetryDelay, cap: policy.transferRetryCap, jitter: jitter)
    }

    /// A backoff from its numbers; a negative base or cap counts as zero.
    public init(base: Duration, cap: Duration, jitter: Jitter = .full) {
        self.base = max(base, .zero)
        self.cap = max(cap, .zero)
        self.jitter = jitter
    }

    /// The most retry `retry` (1 for the first retry) may wait: `base · 2^(retry-1)`, capped.
    public func ceiling(retry: Int) -> Duration {
        let cap = Self.milliseconds(cap)
        var ceiling = Self.milliseconds(base)
        var doublings = 1
        // Doubling stops at the cap (at most 64 times), so no retry count overflows or spins.
        while doublings < retry, ceiling > 0, ceiling < cap {
            ceiling *= 2
            doublings += 1
        }
        return .milliseconds(min(ceiling, cap))
    }

    /// The delay before retry `retry` (1 for the first retry), drawn from `generator`.
    public func delay(retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let ceiling = Self.milliseconds(ceiling(retry: retry))
        switch jitter {
        case .none:
            return .milliseconds(ceiling)
        case .full:
            return .milliseconds(Int64.random(in: 0...ceiling, using: &generator))
        case .equal:
            let half = ceiling / 2
            return .milliseconds(half + Int64.random(in: 0...(ceiling - half), using: &generator))
        }
    }

    /// The delay before retry `retry` when the server may have said how long to wait: its
    /// `Retry-After` wins over the backoff (it knows when it will be back), but never beyond
    /// the cap, so a server cannot park a transfer for a week.
    public func delay(
        retry: Int, retryAfter: Duration?, using generator: inout some RandomNumberGenerator
    ) -> Duration {
        guard let retryAfter else { return delay(retry: retry, using: &generator) }
        return min(max(retryAfter, .zero), cap)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        // A cap of centuries still fits: clamp before multiplying.
        let clamped = min(seconds, Int64.max / 4_000)
        return clamped * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
