package import BackgrounderAppCore
package import BackgrounderProtocol

extension TransferCapability {
    /// Answers a transfer request; who may send it was checked before it came here.
    package func handle(_ request: ClientMessage.TransferRequest, from requester: Requester, in apps: any AppCore)
        throws(ProtocolError) -> DaemonMessage.Body
    {
        switch request {
        case .createTransfer(let submission): .transfer(try create(try requester.app(), submission, in: apps))
        case .cancelTransfer(let reference): .done(try cancel(try requester.app(), reference.transfer, in: apps))
        case .transferSession(let request):
            .transferList(try attach(try requester.app(), session: request.session, in: apps))
        case .acknowledgeTransfer(let reference):
            .done(try acknowledge(try requester.app(), reference.transfer, in: apps))
        case .transfers(let query): .transferList(try list(query, in: apps))
        }
    }
}
