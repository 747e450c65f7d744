package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
package import BackgrounderSystem
package import Foundation
package import Logging

/// Local notifications (`UNUserNotificationCenter`'s role): each app's requests, kept in the
/// store, fired at their time whether the app is running, suspended or not running (never
/// launching it to do so), and handed to a ``NotificationPresenter``.
///
/// One deadline on the core's timer serves every app (docs/decisions/0010): it is set for the
/// soonest next fire and, when it comes, fires everything due. An app in front is asked first (`willPresent`) and
/// the notification is shown only if it answers within a second saying how; an app that does
/// not answer is not shown one, as on iOS. Requests are in NotificationCapability+Requests.swift.
@AppCoreActor
package final class NotificationCapability: AppCapability {
    package let store: StateStore
    package let logger: Logger
    package let presenter: any NotificationPresenter
    /// Wall-clock time and the device's time zone (calendar triggers).
    package let clock: @Sendable () -> Date
    package let timeZone: @Sendable () -> TimeZone

    /// People following deliveries (`bgctl notifications --follow`).
    package let feed: NotificationFeed?
    package var grants: [BundleID: NotificationAuthorization]
    /// What watches location triggers' regions (the location capability, wired by the
    /// composition); `nil` in a daemon without location, where such triggers are refused.
    package weak var regions: (any NotificationRegionWatching)?
    package var pending: [BundleID: [String: PendingNotification]]
    package var delivered: [BundleID: [String: DeliveredNotification]]
    /// Notifications an app in front was asked about, with the wait for its answer.
    package var asking: [BundleID: [String: (notification: DeliveredNotification, wait: Task<Void, Never>)]] = [:]
    /// Responses waiting for their app to check in, at most
    /// ``AppLimits/maximumPendingRemoteCommands`` per app.
    package var responses: [BundleID: [NotificationResponse]] = [:]
    /// The next fire set on the core's timer.
    private var timerDue: Date?

    /// Loads grants and notifications stored by an earlier run.
    package nonisolated init(
        store: StateStore, presenter: any NotificationPresenter, feed: NotificationFeed? = nil, logger: Logger,
        clock: @escaping @Sendable () -> Date = { Date() },
        timeZone: @escaping @Sendable () -> TimeZone = { TimeZone.current }
    ) {
        self.store = store
        self.presenter = presenter
        self.feed = feed
        self.logger = logger
        self.clock = clock
        self.timeZone = timeZone
        grants = ((try? store.authorizationLevels(service: .notifications)) ?? [:]).mapValues {
            NotificationAuthorization(rawValue: $0) ?? .notDetermined
        }
        do {
            let stored = try store.loadNotifications { logger.error("cannot read \($0); skipped") }
            pending = stored.pending
            delivered = stored.delivered
        } catch {
            logger.error("cannot load notifications from \(store.path): \(error); starting with none")
            pending = [:]
            delivered = [:]
        }
    }

    package var authorizationServices: [AuthorizationService] { [.notifications] }

    // MARK: The life cycle

    package func app(_ identifier: BundleID, changed change: LifecycleChange, in apps: any AppCore) {
        switch change {
        case .checkedIn:
            // Responses that waited for the app (it was launched to hear one).
            for response in responses.removeValue(forKey: identifier) ?? [] {
                apps.notify(identifier, .notificationResponse(response))
            }
        case .exited, .forceQuit:
            // An app that was asked and went away before answering is no longer in front:
            // its notifications are shown as to any app in the background.
            for (_, asked) in asking.removeValue(forKey: identifier) ?? [:] {
                asked.wait.cancel()
                show(identifier, asked.notification, in: apps)
            }
            if change == .forceQuit { responses[identifier] = nil }
        case .launched, .moved, .windowsClosed, .assertionsChanged:
            break
        }
    }

    /// Pending and delivered notifications went with the identity; the grant is read again.
    package func identityChanged(_ identifier: BundleID, in apps: any AppCore) {
        pending[identifier] = nil
        delivered[identifier] = nil
        responses[identifier] = nil
        for (_, asked) in asking.removeValue(forKey: identifier) ?? [:] { asked.wait.cancel() }
        grants[identifier] = ((try? store.authorizationLevels(service: .notifications))?[identifier])
            .flatMap(NotificationAuthorization.init(rawValue:))
        reschedule(in: apps)
    }

    // MARK: The timer

    /// Notifications stored by an earlier run are scheduled again; those due while the daemon
    /// was stopped fire now.
    package func start(in apps: any AppCore) {
        reschedule(in: apps)
    }

    /// Sets the one timer to the soonest next fire of any app's request.
    package func reschedule(in apps: any AppCore) {
        boundAfterClockSetBack()
        let soonest = pending.values.lazy.flatMap(\.values).compactMap(\.nextFire).min()
        let due = soonest.map { Date(timeIntervalSince1970: $0) }
        guard due != timerDue else { return }
        timerDue = due
        apps.setDeadline(atWallClock: due, for: self)
    }

    package func deadlineReached(in apps: any AppCore) {
        wake(in: apps)
    }

    /// A wall clock set back leaves requests further away than their own rhythm: they are
    /// brought back (``NotificationSchedule/boundedFire(_:of:now:timeZone:)``) and stored so.
    private func boundAfterClockSetBack() {
        let now = clock()
        for (bundle, requests) in pending {
            for (identifier, entry) in requests {
                guard let stored = entry.nextFire else { continue }
                let bounded = NotificationSchedule.boundedFire(
                    Date(timeIntervalSince1970: stored), of: entry.request.trigger, now: now, timeZone: timeZone())
                guard bounded.timeIntervalSince1970 < stored else { continue }
                pending[bundle]?[identifier]?.nextFire = bounded.timeIntervalSince1970
                do {
                    try store.savePendingNotification(pending[bundle]![identifier]!, for: bundle)
                } catch {
                    logger.error("cannot store \(bundle)'s notification \(identifier): \(error)")
                }
            }
        }
    }

    /// The timer went off: fires every request due by now.
    package func wake(in apps: any AppCore) {
        timerDue = nil
        let now = clock()
        for (bundle, requests) in pending.sorted(by: { $0.key < $1.key }) {
            for entry in requests.values.sorted(by: { ($0.nextFire ?? 0) < ($1.nextFire ?? 0) }) {
                guard let next = entry.nextFire, next <= now.timeIntervalSince1970 else { continue }
                fire(bundle, entry, due: Date(timeIntervalSince1970: next), now: now, in: apps)
            }
        }
        reschedule(in: apps)
    }

    /// A request's time came (or its region was crossed): it is pending again if it repeats,
    /// and shown, or the app in front is asked first.
    package func fire(
        _ bundle: BundleID, _ entry: PendingNotification, due: Date, now: Date, in apps: any AppCore
    ) {
        let request = entry.request
        let next = NotificationSchedule.nextFire(of: request.trigger, due: due, now: now, timeZone: timeZone())
        if let next {
            pending[bundle]?[request.identifier]?.nextFire = next.timeIntervalSince1970
        } else if !request.isRegionTriggered || !(request.trigger?.repeats ?? false) {
            pending[bundle]?[request.identifier] = nil
            if request.isRegionTriggered { stopWatching(bundle, [request.identifier], in: apps) }
        }
        do {
            try store.recordFired(
                request, nextFire: next, keepPending: pending[bundle]?[request.identifier] != nil, for: bundle)
        } catch {
            logger.error("cannot store that \(bundle)'s notification \(request.identifier) fired: \(error)")
        }
        let notification = DeliveredNotification(request: request, date: now.timeIntervalSince1970)
        guard grants[bundle] == .granted else {
            apps.appLogger(bundle).notice(
                "notification \(request.identifier) not shown: notifications are not granted")
            return
        }
        guard apps.isInFront(bundle), apps.canHear(bundle) else {
            show(bundle, notification, in: apps)
            return
        }
        // In front: the app says how it is shown, within a second, or it is not.
        asking[bundle, default: [:]][request.identifier]?.wait.cancel()
        let identifier = request.identifier
        let wait = Task { [weak self, weak apps] in
            try? await BootSleep.sleep(for: .seconds(NotificationPresentation.answerSeconds))
            guard !Task.isCancelled, let self, let apps else { return }
            presentationTimedOut(bundle, identifier, in: apps)
        }
        asking[bundle, default: [:]][identifier] = (notification, wait)
        apps.notify(bundle, .notificationWillPresent(NotificationWillPresent(notification: notification)))
    }

    /// No answer to `willPresent` came in time: not shown, as iOS does for an app in front.
    package func presentationTimedOut(_ bundle: BundleID, _ identifier: String, in apps: any AppCore) {
        guard asking[bundle]?.removeValue(forKey: identifier) != nil else { return }
        apps.appLogger(bundle).info(
            "notification \(identifier) not shown: the app in front did not answer willPresent in time")
    }

    /// Records a notification as delivered and hands it to the presenter.
    package func show(_ bundle: BundleID, _ notification: DeliveredNotification, in apps: any AppCore) {
        let identifier = notification.request.identifier
        if let earlier = delivered[bundle]?[identifier]?.presenter { withdraw([earlier]) }
        delivered[bundle, default: [:]][identifier] = notification
        var forgotten: [String] = []
        while let own = delivered[bundle], own.count > NotificationLimits.maximumDeliveredPerApp,
            let oldest = own.values.min(by: { $0.date < $1.date })
        {
            delivered[bundle]?[oldest.request.identifier] = nil
            forgotten.append(oldest.request.identifier)
        }
        do {
            try store.saveDelivered(notification, for: bundle)
            if !forgotten.isEmpty { try store.removeNotifications(.delivered, identifiers: forgotten, for: bundle) }
        } catch {
            logger.error("cannot store \(bundle)'s delivered notification \(identifier): \(error)")
        }
        let appName = apps.manifest(of: bundle)?.name ?? bundle.rawValue
        feed?.publish(DeliveredNotice(bundle: bundle, app: appName, notification: notification))
        let presenter = self.presenter
        let logger = apps.appLogger(bundle)
        Task { [weak self] in
            do {
                let handle = try await presenter.present(bundle: bundle, appName: appName, notification: notification)
                self?.presented(bundle, identifier, date: notification.date, handle: handle)
            } catch {
                logger.error("notification \(identifier) could not be shown by \(presenter.name): \(error)")
            }
        }
    }

    /// The presenter showed it: its handle is kept for withdrawing it.
    package func presented(_ bundle: BundleID, _ identifier: String, date: Double, handle: String) {
        guard delivered[bundle]?[identifier]?.date == date else {
            // Removed (or replaced) while it was being shown.
            withdraw([handle])
            return
        }
        delivered[bundle]?[identifier]?.presenter = handle
        do {
            try store.setNotificationPresenter(handle, identifier: identifier, for: bundle)
        } catch {
            logger.error("cannot store \(bundle)'s notification \(identifier)'s presenter handle: \(error)")
        }
    }

    /// Takes shown notifications back.
    package func withdraw(_ handles: [String]) {
        guard !handles.isEmpty else { return }
        let presenter = self.presenter
        Task {
            for handle in handles { await presenter.withdraw(handle) }
        }
    }
}

extension NotificationRequest {
    /// Whether a region crossing fires it, rather than the clock.
    package var isRegionTriggered: Bool {
        if case .location? = trigger { return true }
        return false
    }
}
