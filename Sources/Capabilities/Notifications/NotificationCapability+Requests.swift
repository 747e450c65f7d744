package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
package import Foundation
import Logging

/// What apps and people ask of the notification capability.
extension NotificationCapability: NotificationRegionCrossing {
    // MARK: Grants

    /// `bgctl authorize ID notifications granted|denied`.
    package func authorize(_ request: Authorize, in apps: any AppCore) throws(ProtocolError) -> Done {
        let identifier = request.bundle
        _ = try apps.bundle(of: identifier)
        guard case .notifications(let level) = request.grant, level != .notDetermined else {
            throw ProtocolError(.badRequest, "notifications are granted or denied")
        }
        do {
            try store.setAuthorization(identifier, request.grant)
        } catch {
            throw ProtocolError(.failed, "cannot store the grant: \(error)")
        }
        grants[identifier] = level
        apps.appLogger(identifier).notice("notifications are now \(level.rawValue)")
        return Done(detail: "\(identifier): notifications \(level.rawValue)")
    }

    /// `NOTIFICATION_AUTHORIZATION` from an app: what a person decided. The daemon never
    /// grants by itself; the request is logged so a person sees the app asked.
    package func requestAuthorization(
        _ identifier: BundleID, _ request: NotificationAuthorizationRequest, in apps: any AppCore
    ) -> NotificationAuthorizationStatus {
        let status = grants[identifier] ?? .notDetermined
        if status == .notDetermined {
            let options = request.options.isEmpty ? nil : "to show \(request.options.joined(separator: ", "))"
            apps.askPerson(identifier, for: .notifications, asks: "granted", usage: options)
        }
        return NotificationAuthorizationStatus(status: status)
    }

    // MARK: Requests

    /// `NOTIFICATION_ADD` from an app: stored, and fired at its time (at once without a trigger).
    package func add(_ identifier: BundleID, _ request: NotificationRequest, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        guard grants[identifier] == .granted else {
            throw ProtocolError(
                .notAuthorized,
                "notifications are not granted; a person grants them with `bgctl authorize \(identifier) notifications`"
            )
        }
        let now = clock()
        let first: Date?
        do {
            first = try request.validated(now: now, timeZone: timeZone())
        } catch {
            throw ProtocolError(.badRequest, error.description)
        }
        let own = pending[identifier] ?? [:]
        if own[request.identifier] == nil && own.count >= NotificationLimits.maximumPendingPerApp {
            throw ProtocolError(
                .limitReached,
                "\(identifier) already has \(own.count) pending notification requests, the most an app may have")
        }
        if case .location(let region, _) = request.trigger {
            try watchRegion(identifier, request.identifier, region, in: apps)
        } else if own[request.identifier]?.request.isRegionTriggered == true {
            stopWatching(identifier, [request.identifier], in: apps)
        }
        let entry = PendingNotification(request: request, nextFire: first?.timeIntervalSince1970)
        do {
            try store.savePendingNotification(entry, for: identifier)
        } catch {
            throw ProtocolError(.failed, "cannot store the notification request: \(error)")
        }
        pending[identifier, default: [:]][request.identifier] = entry
        let when = first.map { "at \(Self.format($0))" } ?? "on its region"
        apps.appLogger(identifier).info("notification \(request.identifier) added; it fires \(when)")
        if let first, first <= now {
            fire(identifier, entry, due: first, now: now, in: apps)
        }
        reschedule(in: apps)
        return Done(detail: "notification \(request.identifier) fires \(when)")
    }

    package nonisolated static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    /// `NOTIFICATION_LIST` from an app: its own pending requests or delivered notifications.
    package func list(_ identifier: BundleID, _ kind: NotificationListKind) -> NotificationsList {
        let all = list(identifier)
        return NotificationsList(
            bundle: identifier, authorization: all.authorization, pending: kind == .pending ? all.pending : [],
            delivered: kind == .delivered ? all.delivered : [])
    }

    /// Both lists of an app.
    package func list(_ identifier: BundleID) -> NotificationsList {
        NotificationsList(
            bundle: identifier, authorization: grants[identifier] ?? .notDetermined,
            pending: (pending[identifier] ?? [:]).values.sorted {
                ($0.nextFire ?? .infinity, $0.request.identifier) < ($1.nextFire ?? .infinity, $1.request.identifier)
            },
            delivered: (delivered[identifier] ?? [:]).values.sorted {
                ($0.date, $0.request.identifier) < ($1.date, $1.request.identifier)
            })
    }

    /// `NOTIFICATIONS` from a person: any app's, loaded or with notifications stored.
    package func list(person identifier: BundleID, in apps: any AppCore) throws(ProtocolError) -> NotificationsList {
        guard apps.manifest(of: identifier) != nil || pending[identifier] != nil || delivered[identifier] != nil else {
            throw ProtocolError(
                .notFound, "no app '\(identifier)': no such bundle is loaded and it has no notifications")
        }
        return list(identifier)
    }

    /// `NOTIFICATION_REMOVE` from an app: some or all of its own.
    package func remove(_ identifier: BundleID, _ removal: NotificationRemoval, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        let names = removal.identifiers
        var handles: [String] = []
        switch removal.list {
        case .pending:
            let own = pending[identifier] ?? [:]
            let gone = names.map { names in own.filter { names.contains($0.key) } } ?? own
            stopWatching(
                identifier, gone.values.filter(\.request.isRegionTriggered).map(\.request.identifier), in: apps)
            for name in gone.keys { pending[identifier]?[name] = nil }
        case .delivered:
            let own = delivered[identifier] ?? [:]
            let gone = names.map { names in own.filter { names.contains($0.key) } } ?? own
            handles = gone.values.compactMap(\.presenter)
            for name in gone.keys { delivered[identifier]?[name] = nil }
        }
        do {
            try store.removeNotifications(removal.list, identifiers: names, for: identifier)
        } catch {
            throw ProtocolError(.failed, "cannot remove the notifications: \(error)")
        }
        withdraw(handles)
        return Done(detail: "removed \(names.map { "\($0.count)" } ?? "all") \(removal.list.rawValue) notification(s)")
    }

    /// `NOTIFICATION_PRESENTATION` from an app in front: how to show what it was asked about.
    package func answer(_ identifier: BundleID, _ presentation: NotificationPresentation, in apps: any AppCore)
        throws(ProtocolError) -> Done
    {
        guard let asked = asking[identifier]?.removeValue(forKey: presentation.request) else {
            throw ProtocolError(
                .notFound,
                "no notification '\(presentation.request)' is waiting for \(identifier) to say how to show it")
        }
        asked.wait.cancel()
        guard presentation.shows else {
            apps.appLogger(identifier).info("notification \(presentation.request) not shown: the app in front said so")
            return Done(detail: "notification \(presentation.request) not shown")
        }
        show(identifier, asked.notification, in: apps)
        return Done(detail: "notification \(presentation.request) shown")
    }

    // MARK: Location triggers

    /// Hands a location trigger's region to the location capability (see
    /// LocationCapability+Notifications.swift).
    package func watchRegion(_ identifier: BundleID, _ request: String, _ region: CircularRegion, in apps: any AppCore)
        throws(ProtocolError)
    {
        guard let regions else {
            throw ProtocolError(.unavailable, "trigger.region: this daemon runs without location")
        }
        try regions.monitorForNotification(identifier, request: request, region, in: apps)
    }

    /// Stops watching the regions of requests no longer pending.
    package func stopWatching(_ identifier: BundleID, _ requests: [String], in apps: any AppCore) {
        guard !requests.isEmpty else { return }
        regions?.stopMonitoringForNotifications(identifier, requests: requests)
    }

    /// The device entered or left a location trigger's region (as its `notifyOnEntry` and
    /// `notifyOnExit` ask): the request fires; the app is neither woken nor launched.
    package func regionCrossed(_ identifier: BundleID, request: String, in apps: any AppCore) {
        guard let entry = pending[identifier]?[request], entry.request.isRegionTriggered else { return }
        let now = clock()
        fire(identifier, entry, due: now, now: now, in: apps)
    }

    // MARK: Activation

    /// A person acted on a delivered notification (a desktop click, `bgctl notifications ID
    /// activate`): it leaves the delivered list and, unless dismissed, the app is opened (launched
    /// if need be) and hears the response once it checks in.
    package func activate(_ activation: NotificationActivation, in apps: any AppCore) throws(ProtocolError) -> Done {
        let identifier = activation.bundle
        guard let notification = delivered[identifier]?[activation.request] else {
            throw ProtocolError(
                .notFound, "\(identifier) has no delivered notification '\(activation.request)'")
        }
        let action = activation.action ?? NotificationAction.default
        let response = NotificationResponse(notification: notification, actionIdentifier: action)
        guard action != NotificationAction.dismiss else {
            // Dismissing opens nothing; a running app hears it.
            useUp(notification, of: identifier)
            apps.appLogger(identifier).notice("notification \(activation.request): a person chose \(action)")
            if apps.canHear(identifier) { apps.notify(identifier, .notificationResponse(response)) }
            return Done(detail: "dismissed \(activation.request)", state: apps.state(of: identifier))
        }
        let queued = responses[identifier]?.count ?? 0
        guard queued < AppLimits.maximumPendingRemoteCommands else {
            throw ProtocolError(
                .limitReached, "\(queued) notification responses already wait for \(identifier) to check in")
        }
        responses[identifier, default: []].append(response)
        let done: Done
        do {
            done = try apps.open(identifier)
        } catch {
            // Refused (the screen is locked): the notification stays delivered, to be acted on later.
            responses[identifier]?.removeLast()
            throw error
        }
        useUp(notification, of: identifier)
        apps.appLogger(identifier).notice("notification \(activation.request): a person chose \(action)")
        if apps.canHear(identifier) {
            for waiting in responses.removeValue(forKey: identifier) ?? [] {
                apps.notify(identifier, .notificationResponse(waiting))
            }
        }
        return Done(detail: "\(done.detail); it hears the response to \(activation.request)", state: done.state)
    }
}

extension NotificationCapability {
    /// A delivered notification a person acted on: off the list, the desktop and the store.
    private func useUp(_ notification: DeliveredNotification, of identifier: BundleID) {
        delivered[identifier]?[notification.request.identifier] = nil
        try? store.removeNotifications(.delivered, identifiers: [notification.request.identifier], for: identifier)
        if let handle = notification.presenter { withdraw([handle]) }
    }
}
