package import BackgrounderAppCore
package import BackgrounderProtocol

extension LocationCapability {
    /// Answers a location request; who may send it was checked before it came here.
    package func handle(_ request: ClientMessage.LocationRequest, from requester: Requester, in apps: any AppCore)
        throws(ProtocolError) -> DaemonMessage.Body
    {
        switch request {
        case .requestAuthorization(let request):
            .authorization(try requestAuthorization(try requester.app(), level: request.level, in: apps))
        case .locationUpdates(let subscription):
            .done(try setSubscription(try requester.app(), subscription, in: apps))
        case .locationReady:
            .done(ready(try requester.app(), in: apps))
        case .locationAck(let ack):
            .done(try acknowledge(try requester.app(), through: ack.through, in: apps))
        case .startMonitoring(let request):
            .done(try startMonitoring(try requester.app(), request.region, in: apps))
        case .stopMonitoring(let region):
            .done(stopMonitoring(try requester.app(), region: region.identifier))
        case .requestState(let region):
            .regionState(try regionState(try requester.app(), region: region.identifier))
        case .regions(let query):
            // Naming an app, a person asks about it; without one, an app about itself.
            .regions(try monitoredRegions(try requester.app(or: query.bundle), in: apps))
        }
    }
}
