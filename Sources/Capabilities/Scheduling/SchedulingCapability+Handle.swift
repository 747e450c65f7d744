package import BackgrounderAppCore
package import BackgrounderProtocol

extension SchedulingCapability {
    /// Answers a fetch, task or push request; who may send it was checked before it came here.
    package func handle(_ request: ClientMessage.SchedulingRequest, from requester: Requester, in apps: any AppCore)
        throws(ProtocolError) -> DaemonMessage.Body
    {
        switch request {
        case .wake(let wake): .done(try self.wake(wake, in: apps))
        case .push(let push): .pushed(try self.push(push, in: apps))
        case .tasks(let query): .schedule(schedule(query, in: apps))
        case .simulateTask(let request): .done(try simulateTask(request, in: apps))
        case .expireTask(let request): .done(try expireTask(request, in: apps))
        case .setFetchInterval(let request):
            .done(try setFetchInterval(try requester.app(), request.interval, in: apps))
        case .complete(let completion): .done(try complete(try requester.app(), completion, in: apps))
        case .registerTask(let registration):
            .done(try register(try requester.app(), task: registration.identifier, in: apps))
        case .submitTask(let submission): .done(try submit(try requester.app(), submission, in: apps))
        case .cancelTasks(let cancellation):
            .done(cancel(try requester.app(), task: cancellation.identifier, in: apps))
        case .pendingTasks: .taskRequests(pending(try requester.app()))
        case .registerPush: .pushToken(try registerPush(try requester.app()))
        case .unregisterPush: .done(unregisterPush(try requester.app()))
        }
    }
}
