public import BackgrounderCore
import BackgrounderProtocol
import Foundation

/// Background fetch and remote notifications, as `UIApplication` and its delegate offer them.
extension Application {
    /// Asks for background fetch no more often than `interval`, as
    /// `setMinimumBackgroundFetchInterval(_:)`. `.never` (the default) turns it off. The
    /// system decides when, within the policy's budget.
    public func setMinimumBackgroundFetchInterval(_ interval: BackgroundFetchInterval) {
        guard let connection = daemonConnection else { return }
        if case .error(let error) = try? connection.request(.setFetchInterval(FetchIntervalRequest(interval: interval)))
            .body
        {
            FileHandle.standardError.write(
                Data("BackgroundKit: setMinimumBackgroundFetchInterval: \(error.message)\n".utf8))
        }
    }

    /// Asks for a device token, as `registerForRemoteNotifications()`; the delegate hears it
    /// (or the error) on the main actor.
    public func registerForRemoteNotifications() {
        let reply = daemonConnection.flatMap { try? $0.request(.registerPush).body }
        Task { @MainActor in
            switch reply {
            case .pushToken(let token)?:
                self.delegate?.application(self, didRegisterForRemoteNotificationsWithDeviceToken: token.token)
                if let endpoint = token.endpoint {
                    self.delegate?.application(self, didReceivePushEndpoint: endpoint)
                }
            case .error(let error)?:
                self.delegate?.application(self, didFailToRegisterForRemoteNotificationsWithError: error)
            default:
                self.delegate?.application(
                    self, didFailToRegisterForRemoteNotificationsWithError: ProtocolError(.unavailable, "no daemon"))
            }
        }
    }

    /// Revokes the device token: pushes addressed to it are refused from now on.
    public func unregisterForRemoteNotifications() {
        _ = try? daemonConnection?.request(.unregisterPush)
    }

    /// Hands an event to the delegate: the general callback, then the one its window is for.
    func dispatch(_ event: EventNotice) {
        guard let delegate else { return }
        // A window is at least its length of background time; the BACKGROUND_TIME notice
        // saying so may still be on its way (or, for a launch, not sent yet).
        if let seconds = event.seconds, event.window != nil {
            noteBackgroundTime(atLeast: seconds)
        }
        delegate.application(self, didReceive: event.reason)
        guard let window = event.window else { return }
        switch event.reason {
        case .fetch:
            delegate.application(self, performFetchWithCompletionHandler: completion(for: window))
        case .push:
            var userInfo: [String: JSONValue] = [:]
            if case .object(let object) = event.payload { userInfo = object }
            delegate.application(
                self, didReceiveRemoteNotification: userInfo, fetchCompletionHandler: completion(for: window))
        case .appRefresh, .processing:
            if let task = event.task { BGTaskScheduler.shared.launch(task, window: window, reason: event.reason) }
        case .download:
            if let session = event.session { handleEvents(forBackgroundURLSession: session, window: window) }
        default:
            break
        }
    }

    /// A completion handler that ends the window once; later calls do nothing, as on iOS.
    private func completion(for window: EventWindowID) -> @MainActor (BackgroundFetchResult) -> Void {
        var called = false
        return { [weak self] result in
            guard !called else { return }
            called = true
            _ = try? self?.daemonConnection?.request(.complete(WindowCompletion(window: window, result: result)))
        }
    }
}

extension ApplicationDelegate {
    public func application(
        _ application: Application,
        performFetchWithCompletionHandler completionHandler: @escaping @MainActor (BackgroundFetchResult) -> Void
    ) {
        completionHandler(.noData)
    }

    public func application(
        _ application: Application, didReceiveRemoteNotification userInfo: [String: JSONValue],
        fetchCompletionHandler completionHandler: @escaping @MainActor (BackgroundFetchResult) -> Void
    ) {
        completionHandler(.noData)
    }

    public func application(
        _ application: Application, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: String
    ) {}

    public func application(
        _ application: Application, didFailToRegisterForRemoteNotificationsWithError error: any Error
    ) {}

    public func application(_ application: Application, didReceivePushEndpoint endpoint: String) {}
}
