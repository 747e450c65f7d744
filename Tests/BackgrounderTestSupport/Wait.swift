/// Polls a condition until it holds or a deadline passes. Tests wait for real processes
/// (a socket appearing, a fix arriving); the deadline only bounds a failure, it asserts
/// nothing about speed.
/// - Parameters:
///   - timeout: The longest wait.
///   - interval: How often to look.
///   - condition: What to wait for.
/// - Returns: Whether the condition held before the deadline.
@discardableResult
public func waitUntil(
    timeout: Duration = .seconds(20),
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
