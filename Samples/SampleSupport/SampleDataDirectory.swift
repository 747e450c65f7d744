import BackgroundKit

/// How a sample's command line, run by a person, finds the app's data directory: `--state-dir`
/// when given, else the daemon it talks to says (`BACKGROUNDER_SOCKET`); see
/// `Application.locateDataDirectory(forBundle:stateDirectory:)` for the rules.
public enum SampleDataDirectory {
    /// `EX_UNAVAILABLE`: the daemon that would say where the data is cannot be asked.
    public static let unavailableExit: Int32 = 69

    /// The app's data directory, with any note said on standard error.
    /// - Parameters:
    ///   - identifier: The app's bundle identifier.
    ///   - stateDirectory: `--state-dir`, when given.
    ///   - program: The program's name, for the messages.
    /// - Returns: The directory, or `nil` when it cannot be found (said on standard error;
    ///   exit with ``unavailableExit``).
    public static func find(forBundle identifier: String, stateDirectory: String?, program: String) -> String? {
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
