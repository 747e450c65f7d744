package import BackgrounderAppCore
package import BackgrounderProtocol

extension NotificationCapability {
    /// Answers a notification request; who may send it was checked before it came here.
    package func handle(
        _ request: ClientMessage.NotificationsRequest, from requester: Requester, in apps: any AppCore
    ) throws(ProtocolError) -> DaemonMessage.Body {
        switch request {
        case .requestNotificationAuthorization(let request):
            .notificationAuthorization(requestAuthorization(try requester.app(), request, in: apps))
        case .addNotification(let request): .done(try add(try requester.app(), request, in: apps))
        case .listNotifications(let query): .notifications(list(try requester.app(), query.list))
        case .removeNotifications(let removal): .done(try remove(try requester.app(), removal, in: apps))
        case .notificationPresentation(let presentation):
            .done(try answer(try requester.app(), presentation, in: apps))
        case .notifications(let query): .notifications(try list(person: query.bundle, in: apps))
        case .activateNotification(let activation): .done(try activate(activation, in: apps))
        }
    }
}
