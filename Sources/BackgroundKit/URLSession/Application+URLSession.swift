import BackgrounderCore
import BackgrounderProtocol

/// Background sessions' events: the daemon launched or woke the app because a session's
/// transfers are all finished.
extension Application {
    /// Hands the event to the delegate, which recreates the session; a session that already
    /// exists in this process asks for its transfers again. Either way the delegate hears
    /// each finished transfer, then `urlSessionDidFinishEvents`.
    func handleEvents(forBackgroundURLSession identifier: String, window: EventWindowID) {
        let registry = URLSessionRegistry.shared
        let existing = registry.session(identifier)
        registry.noteEvent(for: identifier)
        var called = false
        let completion: @MainActor () -> Void = { [weak self] in
            // Once, as on iOS: the window ends at the first call.
            guard !called else { return }
            called = true
            _ = try? self?.daemonConnection?.request(.complete(WindowCompletion(window: window)))
        }
        if let delegate {
            delegate.application(self, handleEventsForBackgroundURLSession: identifier, completionHandler: completion)
        } else {
            completion()
        }
        // Recreated by the delegate, the new session attached already.
        if let existing, registry.session(identifier) === existing { existing.attach() }
    }
}

extension ApplicationDelegate {
    public func application(
        _ application: Application, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping @MainActor () -> Void
    ) {
        completionHandler()
    }
}
