package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem
import Foundation

/// The requests of background transfers: an app's own (create, cancel, attach a session,
/// acknowledge a finished transfer) and a person's listing. An app names only its own
/// transfers: another app's identifier is answered as one that does not exist.
extension TransferCapability {
    /// `TRANSFER_CREATE`: checks the request and the app's limits, and queues it.
    package func create(_ identifier: BundleID, _ submission: TransferSubmission, in apps: any AppCore)
        throws(ProtocolError) -> TransferInfo
    {
        guard let manifest = apps.manifest(of: identifier) else {
            throw ProtocolError(.notFound, "no loaded bundle \(identifier)")
        }
        let policy = apps.schedulingPolicy(for: manifest)
        var request = submission
        try Self.check(request)
        var expectedSend: Int64 = 0
        if request.kind == .upload {
            let allowed = apps.containerPaths(of: identifier)
            do {
                let file = try UploadFile.open(request.file ?? "", allowedIn: allowed)
                expectedSend = file.length
                file.close()
            } catch {
                throw ProtocolError(.badRequest, "file: \(error.description)")
            }
        }
        let pending = transfers.values.count { $0.info.bundle == identifier }
        if let refusal = TransferQueue.admit(
            bundle: identifier, pendingCount: pending, diskBytes: bytesOnDisk(of: identifier),
            expected: request.expectedBytesToReceive, policy: policy)
        {
            throw ProtocolError(.limitReached, refusal)
        }
        if let begin = request.earliestBeginDate,
            begin - clock().timeIntervalSince1970 > policy.maximumEarliestBeginDelay.seconds
        {
            throw ProtocolError(
                .badRequest, "earliestBeginDate: more than \(policy.maximumEarliestBeginDelay) ahead")
        }
        // A transfer handed over from the background is discretionary, as on iOS.
        if !apps.isInFront(identifier) { request.discretionary = true }
        let id = nextID
        nextID += 1
        let info = TransferInfo(
            id: id, bundle: identifier, request: request, state: .waiting, bytesExpectedToSend: expectedSend,
            created: clock().timeIntervalSince1970)
        transfers[id] = Transfer(info: info)
        signalled.remove(SessionKey(app: identifier, session: request.session))
        save(id)
        apps.appLogger(identifier).info(
            "transfer \(id) accepted: \(request.kind.rawValue) \(request.url) in session \(request.session)")
        reschedule(in: apps)
        return transfers[id]?.info ?? info
    }

    /// The fields of a submission, each refused with its name and why.
    package nonisolated static func check(_ request: TransferSubmission) throws(ProtocolError) {
        try checkSession(request.session)
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(), url.host != nil else {
            throw ProtocolError(.badRequest, "url: \(request.url.prefix(200)) is not an absolute URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw ProtocolError(.badRequest, "url: only http and https are supported, not \(scheme)")
        }
        if let method = request.method,
            method.isEmpty || method.count > 20 || !method.allSatisfy({ $0.isLetter && $0.isASCII })
        {
            throw ProtocolError(.badRequest, "method: \(method.prefix(40)) is not an HTTP method")
        }
        for (name, value) in request.headers ?? [:] {
            let token = !name.isEmpty && name.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: ":") }
            // By scalar: "\r\n" is one Character, equal to neither "\r" nor "\n".
            if !token || value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
                throw ProtocolError(.badRequest, "headers: \(name.prefix(60)) is not a valid header")
            }
        }
        switch request.kind {
        case .download where request.file != nil:
            throw ProtocolError(.badRequest, "file: a download has no file to send")
        case .upload where request.file == nil:
            throw ProtocolError(.badRequest, "file: an upload needs the file to send")
        default:
            break
        }
    }

    /// A background session's identifier: 1 to 200 characters.
    package nonisolated static func checkSession(_ session: String) throws(ProtocolError) {
        if session.isEmpty || session.count > 200 {
            throw ProtocolError(.badRequest, "session: must be 1 to 200 characters")
        }
    }

    /// `TRANSFER_CANCEL`: the transfer ends as cancelled (a finished one stays as it is).
    package func cancel(_ identifier: BundleID, _ id: Int, in apps: any AppCore) throws(ProtocolError) -> Done {
        let transfer = try own(identifier, id)
        guard !transfer.info.state.isFinished else {
            return Done(detail: "transfer \(id) had already \(transfer.info.state.rawValue)")
        }
        end(id, state: .cancelled, error: TransferError(.cancelled, "cancelled by the app"), in: apps)
        return Done(detail: "transfer \(id) cancelled")
    }

    /// `TRANSFER_SESSION`: this process hears the session's transfers from now on; the reply
    /// lists them, finished ones included until acknowledged.
    package func attach(_ identifier: BundleID, session: String, in apps: any AppCore) throws(ProtocolError)
        -> TransferList
    {
        try Self.checkSession(session)
        attached[identifier, default: []].insert(session)
        signalled.remove(SessionKey(app: identifier, session: session))
        return TransferList(
            transfers: transfers.values.filter { $0.info.bundle == identifier && $0.info.request.session == session }
                .map(\.info).sorted { $0.id < $1.id })
    }

    /// `TRANSFER_ACK`: the app heard a finished transfer; its file, if the app left it, is
    /// removed, and the transfer forgotten.
    package func acknowledge(_ identifier: BundleID, _ id: Int, in apps: any AppCore) throws(ProtocolError) -> Done {
        let transfer = try own(identifier, id)
        guard transfer.info.state.isFinished else {
            throw ProtocolError(.invalidState, "transfer \(id) is still \(transfer.info.state.rawValue)")
        }
        if transfer.info.location != nil { files.removeDelivered(id, from: identifier) }
        transfers[id] = nil
        do {
            try store.removeTransfer(id: id)
        } catch {
            logger.error("cannot forget transfer \(id): \(error)")
        }
        return Done(detail: "transfer \(id) acknowledged")
    }

    /// `TRANSFERS`: a person's view of every transfer, one app's, or one.
    package func list(_ query: TransferQuery, in apps: any AppCore) throws(ProtocolError) -> TransferList {
        if let bundle = query.bundle, apps.manifest(of: bundle) == nil {
            throw ProtocolError(.notFound, "no loaded bundle \(bundle)")
        }
        if let id = query.transfer, transfers[id] == nil {
            throw ProtocolError(.notFound, "no transfer \(id)")
        }
        return TransferList(
            transfers: transfers.values.map(\.info).filter { info in
                (query.bundle == nil || info.bundle == query.bundle)
                    && (query.transfer == nil || info.id == query.transfer)
            }.sorted { $0.id < $1.id })
    }

    /// One of the app's own transfers; another app's is answered as unknown.
    private func own(_ identifier: BundleID, _ id: Int) throws(ProtocolError) -> Transfer {
        guard let transfer = transfers[id], transfer.info.bundle == identifier else {
            throw ProtocolError(.notFound, "no transfer \(id) of \(identifier)")
        }
        return transfer
    }
}
