import BackgrounderCore
import Foundation

/// Reading an app's log (`STATE/logs/ID.log`) as the app wrote it: the daemon's stamps and
/// run markers taken away (``AppLogFormat/appText(_:)``), so tests look for the app's own lines.
public enum AppLogFile {
    /// The app's text in the log at `path`, or `nil` when it cannot be read.
    public static func text(atPath path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8)).map(AppLogFormat.appText)
    }
}
