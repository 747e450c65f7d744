import Foundation

/// Writes a line straight to standard output (the app's log when the daemon runs it), so
/// nothing sits in a buffer when the app is frozen or killed.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line straight to standard error.
func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
