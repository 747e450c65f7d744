import BackgrounderCore
import BackgrounderProtocol
import Foundation

/// Where an app's command line found the app's data directory.
public struct DataDirectoryLocation: Sendable, Hashable {
    /// The directory.
    public var path: String
    /// For the person, when the directory is a guess rather than what they or the daemon said
    /// (no daemon answers on the default socket); `nil` otherwise.
    public var note: String?

    /// Creates a location.
    public init(path: String, note: String? = nil) {
        self.path = path
        self.note = note
    }
}

/// Why an app's command line cannot tell where the app's data directory is.
public struct DataDirectoryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, and what the person can do about it.
    public var description: String
}

extension Application {
    /// Finds an app's data directory for the app's own command line run by a person (not by
    /// the daemon), in this order:
    ///
    /// 1. `stateDirectory` (the person's `--state-dir`): `STATE/data/ID`, without asking anyone.
    /// 2. `BACKGROUNDER_DATA_DIR`, when the daemon runs this process.
    /// 3. The daemon on `BACKGROUNDER_SOCKET` (else the default socket), asked with
    ///    `DATA_DIRECTORY`: the daemon alone knows its `--state-dir`.
    ///
    /// When nothing listens on the *default* socket, the default state directory's entry is
    /// returned with a ``DataDirectoryLocation/note``: with no daemon running a person still
    /// reads what the default daemon's app wrote (a recorded hike after the daemon stopped).
    /// When `BACKGROUNDER_SOCKET` names a daemon that does not answer, it is an error instead:
    /// the person chose a daemon, and reading another one's files would answer the wrong
    /// question without saying so.
    ///
    /// Blocks while it asks; not for the main actor of a running app.
    /// - Parameters:
    ///   - identifier: The app's bundle identifier.
    ///   - stateDirectory: The daemon's `--state-dir` when the person gave it.
    /// - Returns: The directory, and a note when it is a guess.
    /// - Throws: ``DataDirectoryError`` saying why the daemon could not be asked, or what it
    ///   answered, and that `--state-dir` says it directly.
    public nonisolated static func locateDataDirectory(
        forBundle identifier: String, stateDirectory: String?
    ) throws(DataDirectoryError) -> DataDirectoryLocation {
        if let stateDirectory {
            return DataDirectoryLocation(path: dataDirectory(forBundle: identifier, stateDirectory: stateDirectory))
        }
        if let own = dataDirectory { return DataDirectoryLocation(path: own) }
        let socket = DefaultPaths.socket
        let named = ProcessInfo.processInfo.environment[DefaultPaths.socketEnvironmentVariable].map { !$0.isEmpty }
        let reply: DaemonMessage
        do throws(ControlClientError) {
            reply = try ControlClient(socketPath: socket).request(
                .dataDirectory(AppReference(bundle: BundleID(identifier))))
        } catch .daemonNotRunning(_) where named != true {
            let path = dataDirectory(forBundle: identifier, stateDirectory: DefaultPaths.stateDirectory)
            return DataDirectoryLocation(
                path: path,
                note: "no daemon answers on \(socket); reading the default state directory's \(path) "
                    + "(--state-dir DIR names another daemon's)")
        } catch {
            throw DataDirectoryError(
                description: "cannot ask the daemon where \(identifier) keeps its data: \(error) "
                    + "(or pass --state-dir DIR, the daemon's --state-dir)")
        }
        switch reply.body {
        case .dataDirectory(let answer):
            return DataDirectoryLocation(path: answer.path)
        case .error(let error):
            throw DataDirectoryError(
                description: "the daemon on \(socket) did not say where \(identifier) keeps its data: \(error.message) "
                    + "(pass --state-dir DIR to read a state directory directly)")
        default:
            throw DataDirectoryError(
                description: "the daemon on \(socket) answered DATA_DIRECTORY with \(reply.className)")
        }
    }
}
