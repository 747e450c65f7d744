import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderProtocol
import BackgrounderSystem

/// An app's identity is bound to its bundle: a bundle claiming the identifier of an app
/// whose bundle is gone starts fresh, and the removed app's identity is kept aside until a
/// person says the newcomer is that app (`bgctl adopt-bundle`).
extension AppManager {
    /// Keeps the removed app's identity aside so the claimant starts fresh.
    /// - Returns: `nil` when the claimant may load; else why it is held back.
    package func retire(_ claim: BundleClaim) -> String? {
        let identifier = claim.identifier
        if let process = apps[identifier]?.process {
            return
                "the removed app still runs (pid \(process.pid)) and is being ended; once it has gone, `bgctl reload` starts this bundle fresh"
        }
        let outcome = retirement.keepAside(claim)
        if outcome.moved { identityChanged(identifier) }
        return outcome.holdReason
    }

    /// `bgctl adopt-bundle ID`: the bundle loaded as `identifier` is the app whose identity
    /// was kept aside; the two exchange, so adopting again undoes it.
    /// - Throws: ``ProtocolError``: `notFound` with no such bundle or nothing kept aside,
    ///   `invalidState` while the app runs, `failed` when the move fails.
    package func adoptBundle(_ identifier: BundleID) throws(ProtocolError) -> Done {
        guard let bundle = registry.catalog.loaded[identifier] else {
            throw ProtocolError(.notFound, "no bundle is loaded as \(identifier) (see `bgctl bundles`)")
        }
        guard apps[identifier]?.process == nil else {
            throw ProtocolError(
                .invalidState, "\(identifier) is running; quit it first (bgctl quit \(identifier)), then adopt")
        }
        let restored: String?
        do {
            restored = try retirement.exchange(identifier, currentPath: bundle.path)
        } catch {
            throw ProtocolError(.failed, "cannot exchange \(identifier)'s identities: \(error)")
        }
        guard let restored else {
            throw ProtocolError(
                .notFound, "no app's data and grants are kept aside for \(identifier): nothing to adopt")
        }
        identityChanged(identifier)
        appLogger(identifier).notice(
            "a person adopted \(bundle.path) as the app that was at \(restored): it has that app's data and grants; its own are kept aside"
        )
        return Done(
            detail:
                "\(identifier) at \(bundle.path) now has the data and grants of the app that was at \(restored); its own are kept aside (adopting again undoes it)"
        )
    }

    /// The identity changed under an app that is not running: the record and everything
    /// the capabilities hold go, and grants are read again from the store.
    private func identityChanged(_ identifier: BundleID) {
        apps[identifier] = nil
        forceQuit.remove(identifier)
        launchesAwaitingUnlock[identifier] = nil
        settled(consent.drop(identifier))
        tellIdentityChanged(identifier)
    }
}
