public import Foundation

/// One app's silent-push rate limit: a token bucket; persisted as JSON.
///
/// The bucket holds at most ``SchedulingPolicy/pushBurst`` tokens (at least 1) and gains one
/// each ``SchedulingPolicy/pushRefill`` (a refill of 0 means no limit). A push that finds a
/// token is delivered now and takes it. A push that finds none is not dropped: it is kept as the
/// pending payload, replacing any older pending one (only the latest matters, as iOS coalesces
/// silent pushes), and ``pendingDue(policy:)`` says when the bucket will have a token for it. A
/// push that arrives when a token is back but the pending one has not been taken yet is
/// delivered now in its place, since it is the latest.
public struct PushBudget: Sendable, Hashable, Codable {
    /// What to do with an offered push.
    public enum Outcome: Sendable, Hashable {
        /// Deliver it now.
        case deliverNow
        /// Kept as the pending payload, to be delivered at this moment.
        case deferred(until: Date)
    }

    /// Tokens at ``at``.
    var tokens: Double
    /// When ``tokens`` was last brought up to date.
    var at: Date
    /// The latest push that found no token, waiting for one.
    public private(set) var pendingPayload: String?

    /// A full bucket.
    public init(full policy: SchedulingPolicy, now: Date) {
        tokens = Double(Self.capacity(policy))
        at = now
    }

    /// Tokens available now (for display and tests).
    public func available(policy: SchedulingPolicy, now: Date) -> Double {
        var copy = self
        copy.refill(policy, now)
        return copy.tokens
    }

    /// Offers a push's payload.
    public mutating func offer(_ payload: String, policy: SchedulingPolicy, now: Date) -> Outcome {
        refill(policy, now)
        if hasToken {
            tokens -= 1
            pendingPayload = nil  // superseded by this later one, delivered now
            return .deliverNow
        }
        pendingPayload = payload
        return .deferred(until: pendingDue(policy: policy) ?? now)
    }

    /// The pending payload, if a token is there for it now (taking the token).
    public mutating func takeDue(policy: SchedulingPolicy, now: Date) -> String? {
        refill(policy, now)
        guard let payload = pendingPayload, hasToken else { return nil }
        tokens -= 1
        pendingPayload = nil
        return payload
    }

    /// When the pending payload will find a token, or `nil` with none pending.
    public func pendingDue(policy: SchedulingPolicy) -> Date? {
        guard pendingPayload != nil else { return nil }
        let refill = policy.pushRefill.seconds
        guard refill > 0, refill.isFinite else { return at }
        return at.addingTimeInterval(max(0, 1 - tokens) * refill)
    }

    /// Counts the bucket from `now` if it was last brought up to date later (the wall clock
    /// was set back): a deferred push then waits at most one refill from the step, not as
    /// long as the clock went back. Tokens are kept, as ``refill`` keeps them.
    /// - Returns: Whether anything changed.
    @discardableResult
    public mutating func clampFuture(to now: Date) -> Bool {
        guard at > now else { return false }
        at = now
        return true
    }

    /// Rounding must not leave a push one attosecond short of its token at its due date.
    private var hasToken: Bool { tokens >= 1 - 1e-9 }

    private static func capacity(_ policy: SchedulingPolicy) -> Int { max(1, policy.pushBurst) }

    mutating func refill(_ policy: SchedulingPolicy, _ now: Date) {
        let capacity = Double(Self.capacity(policy))
        let refill = policy.pushRefill.seconds
        if refill <= 0 || !refill.isFinite {
            tokens = capacity
        } else {
            // A clock set back gains nothing and loses nothing.
            tokens = min(capacity, tokens + max(0, now.timeIntervalSince(at)) / refill)
        }
        tokens = max(0, tokens)
        at = now
    }

    private enum CodingKeys: String, CodingKey { case tokens, at, pendingPayload }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let tokens = try container.decodeIfPresent(Double.self, forKey: .tokens) ?? 0
        self.tokens = tokens.isFinite ? max(0, tokens) : 0
        at = try container.decodeIfPresent(Date.self, forKey: .at) ?? Date(timeIntervalSince1970: 0)
        pendingPayload = try container.decodeIfPresent(String.self, forKey: .pendingPayload)
    }
}
