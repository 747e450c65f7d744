import Foundation

// What every sample's command line and app share. Kept out of BackgroundKit on purpose:
// these are the samples' own conveniences, not API an app is given.

/// Writes a line straight to standard output (the app's log when the daemon runs it), so
/// nothing sits in a buffer when the app is frozen or killed.
public func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Writes a line straight to standard error.
public func complain(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
