import BackgroundKit
import Foundation

/// How a sample's command line, run by a person, finds the app's data directory: `--state-dir`
/// when given, else the daemon it talks to says (`BACKGROUNDER_SOCKET`); see
/// `Application.locateDataDirectory(forBundle:stateDirectory:)` for the rules.
public enum SampleDataDirectory {
    /// `EX_UNAVAILABLE`: the daemon that would say where the data is cannot be asked.
    public static let unavailableExit: Int32 = 69
    /// `EX_NOINPUT`: `--state-dir` names no directory; ``find(forBundle:stateDirectory:program:)``
    /// exits with it, having said why.
    public static let noInputExit: Int32 = 66

    /// Why a `--state-dir` is no state directory (it does not exist, or is a file), or `nil`.
    static func problem(withStateDirectory path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "not a directory" }
        return nil
    }

    /// The app's data directory, with any note said on standard error.
    /// - Parameters:
    ///   - identifier: The app's bundle identifier.
    ///   - stateDirectory: `--state-dir`, when given.
    ///   - program: The program's name, for the messages.
    /// - Returns: The directory, or `nil` when it cannot be found (said on standard error;
    ///   exit with ``unavailableExit``).
    public static func find(forBundle identifier: String, stateDirectory: String?, program: String) -> String? {
        if let stateDirectory, let problem = problem(withStateDirectory: stateDirectory) {
            complain("\(program): --state-dir \(stateDirectory): \(problem)")
            exit(noInputExit)
        }
        do {
            let location = try Application.locateDataDirectory(forBundle: identifier, stateDirectory: stateDirectory)
            if let note = location.note { complain("\(program): \(note)") }
            return location.path
        } catch {
            complain("\(program): \(error)")
            return nil
        }
    }
}
