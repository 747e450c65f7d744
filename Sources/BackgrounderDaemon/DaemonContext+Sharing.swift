import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension DaemonContext {
    /// `SHARE`: lets a loaded app read a person's files or folders where they lie. Only a
    /// person may ask (``RequestAccess``), and each path is opened here first, as for
    /// imports: with the person's authority (the daemon's uid or root), following no link an
    /// app may have planted. What is recorded is the path with its links resolved and the
    /// file's identity, so a file put in its place later is not opened for the app.
    ///
    /// The paths are opened on a thread of their own: a person's file system (a network
    /// share) may be slow, and the app manager's actor must not wait on it.
    func share(_ request: ShareRequest) async -> DaemonMessage.Body {
        if let refusal = refusal(
            of: "SHARE", for: request.bundle, paths: request.paths, field: "paths", what: "file or folder")
        {
            return .error(refusal)
        }
        let appDirectories = FileIdentity.of(apps.supervisor.appDirectories)
        let apps = self.apps
        let sharing = capabilities.sharing
        let resolved: Result<[SharedFileGrant], ProtocolError> = await Self.onThread(named: "share") {
            var grants: [SharedFileGrant] = []
            for path in request.paths {
                do throws(ProtocolError) {
                    grants.append(try SharedFileGrant.opening(path, appDirectories: appDirectories))
                } catch {
                    return .failure(error)
                }
            }
            return .success(grants)
        }
        do throws(ProtocolError) {
            let grants = try resolved.get()
            return .shared(try await sharing.share(grants, with: request.bundle, in: apps))
        } catch {
            return .error(error)
        }
    }

    /// Why a person's request naming a loaded app and their paths (`IMPORT`, `SHARE`) cannot
    /// be taken, or `nil`: the identifier, the bundle loaded, at least one path, each absolute
    /// and naming something (not `/`, nor ending in `..`).
    func refusal(of request: String, for bundle: BundleID, paths: [String], field: String, what: String)
        -> ProtocolError?
    {
        if let problem = BundleIdentifierRules.problem(with: bundle.rawValue) {
            return ProtocolError(.badRequest, "\(request): bundle is not a bundle identifier: \(problem)")
        }
        guard registry.catalog.loaded[bundle] != nil else {
            return ProtocolError(.notFound, "\(request): no loaded bundle is '\(bundle)'")
        }
        guard !paths.isEmpty else {
            return ProtocolError(.badRequest, "\(request): \(field) is empty: name at least one \(what)")
        }
        for path in paths where !path.hasPrefix("/") || FileImport.name(of: path) == nil {
            return ProtocolError(
                .badRequest, "\(request): \(field): '\(path)' is not an absolute path naming a \(what)")
        }
        return nil
    }
}
