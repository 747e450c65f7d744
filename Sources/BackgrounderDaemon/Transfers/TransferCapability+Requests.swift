import BackgrounderCore
import BackgrounderProtocol

/// The requests of background transfers: an app's own (create, cancel, attach a session,
/// acknowledge a finished transfer) and a person's listing.
extension TransferCapability {
    func create(_ identifier: String, _ submission: TransferSubmission, in apps: isolated AppManager)
        throws(ProtocolError)
        -> TransferInfo
    {
        throw ProtocolError(.unavailable, "background transfers are not built yet")
    }

    func cancel(_ identifier: String, _ transfer: Int, in apps: isolated AppManager) throws(ProtocolError) -> Done {
        throw ProtocolError(.unavailable, "background transfers are not built yet")
    }

    func attach(_ identifier: String, session: String, in apps: isolated AppManager) throws(ProtocolError)
        -> TransferList
    {
        throw ProtocolError(.unavailable, "background transfers are not built yet")
    }

    func acknowledge(_ identifier: String, _ transfer: Int, in apps: isolated AppManager) throws(ProtocolError)
        -> Done
    {
        throw ProtocolError(.unavailable, "background transfers are not built yet")
    }

    func list(_ query: TransferQuery, in apps: isolated AppManager) throws(ProtocolError) -> TransferList {
        TransferList(transfers: [])
    }
}

extension AppManager {
    /// Runs `body` with the transfer capability, on the manager's actor.
    func transfers<Result: Sendable>(
        _ body: @Sendable (TransferCapability, isolated AppManager) throws -> Result
    ) throws -> Result {
        try with(TransferCapability.self, body)
    }
}
