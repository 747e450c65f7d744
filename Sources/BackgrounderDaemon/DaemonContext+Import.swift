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
    /// `IMPORT`: copies a person's files into a loaded app's data directory (made if the app
    /// never ran), as the app's uid, without following links the app planted (``FileImport``).
    /// Only a person may ask (``RequestAccess``): of the daemon's uid or root, so the daemon
    /// reads nothing the person could not.
    ///
    /// The copy runs on a thread of its own for as long as it lasts: an album is hundreds of
    /// megabytes, and the cooperative pool and the app manager's actor must not wait on it.
    /// - Parameter request: The app and the sources.
    /// - Returns: `IMPORTED`, or the `ERROR` naming the field or file and why.
    func importFiles(_ request: ImportRequest) async -> DaemonMessage.Body {
        if let refusal = refusal(
            of: "IMPORT", for: request.bundle, paths: request.sources, field: "sources", what: "file or directory")
        {
            return .error(refusal)
        }
        let supervisor = apps.supervisor
        let directory: String
        let owner: (uid: uid_t, gid: gid_t)?
        do {
            directory = try supervisor.ownDataDirectory(for: request.bundle)
            owner = try supervisor.appIdentity(request.bundle).map { ($0, $0) }
        } catch {
            return .error(ProtocolError(.failed, "IMPORT: \(error)"))
        }
        let appDirectories = FileIdentity.of(supervisor.appDirectories)
        return await Self.onThread(named: "import") {
            let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else {
                return .error(
                    ProtocolError(.failed, "IMPORT: \(directory): cannot open: \(String(cString: strerror(errno)))"))
            }
            defer { close(descriptor) }
            // Every source is opened first: one that cannot be read fails the request before
            // anything is copied.
            var sources: [(path: String, descriptor: Int32)] = []
            defer { for source in sources { close(source.descriptor) } }
            for path in request.sources {
                do throws(DaemonError) {
                    sources.append((path, try FileImport.openSource(path, appDirectories: appDirectories)))
                } catch {
                    return .error(ProtocolError(.notFound, "IMPORT: \(error)"))
                }
            }
            var copy = FileImport(owner: owner)
            let destinations = sources.map { directory + "/" + (FileImport.name(of: $0.path) ?? "") }
            for (source, destination) in zip(sources, destinations) {
                copy.copy(source.descriptor, from: source.path, into: descriptor, as: destination)
            }
            return .imported(
                ImportResult(
                    bundle: request.bundle, directory: directory, destinations: destinations, files: copy.files,
                    bytes: copy.bytes, skipped: copy.skipped))
        }
    }

    /// Runs blocking work on a thread of its own and returns its result.
    static func onThread<T: Sendable>(named name: String, _ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: work()) }
            thread.name = name
            thread.start()
        }
    }
}
