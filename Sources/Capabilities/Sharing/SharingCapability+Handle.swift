package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

extension SharingCapability {
    /// Answers a sharing request; who may send it was checked before it came here.
    package func handle(_ request: ClientMessage.SharingRequest, from requester: Requester, in apps: any AppCore)
        throws(ProtocolError) -> DaemonMessage.Body
    {
        switch request {
        case .requestMediaLibraryAuthorization:
            .mediaLibrary(try requestLibraryAuthorization(try requester.app(), in: apps))
        case .unshare(let request): .shared(try unshare(request, in: apps))
        case .shares(let app): .shared(list(app.bundle))
        }
    }
}
