import Foundation

/// Polls a condition until it holds or a deadline passes. Tests wait for real processes
/// (a socket appearing, a fix arriving); the deadline only bounds a failure, it asserts
/// nothing about speed: a minute by default, since 20 s was missed under load (a daemon
/// counting down 1000 dropped connections beside a parallel build), and a suite's time limit
/// bounds a hang anyway.
/// - Parameters:
///   - timeout: The longest wait.
///   - interval: How often to look.
///   - condition: What to wait for.
/// - Returns: Whether the condition held before the deadline.
@discardableResult
public func waitUntil(
    timeout: Duration = .seconds(60),
    interval: Duration = .milliseconds(50),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// Runs blocking work (a read loop on a socket) on a thread of its own: Swift's cooperative
/// pool has as many threads as cores, two here, and a test blocking one of them for long
/// slows every other test of a parallel run.
/// - Parameter body: The blocking work.
/// - Returns: What it returned.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
