/// Why an audio request failed, as `AVAudioSession`'s errors say it.
public struct AudioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; named after `AVAudioSession.ErrorCode` where one fits.
    public enum Code: String, Sendable, Hashable {
        /// A value the daemon refused, such as an option or a format; the message names it
        /// (`.badParam`).
        case badParam
        /// The session or stream does not allow it as it is: a category that does not play
        /// or record, a paused stream asked to drain.
        case invalidState
        /// The app may not record: no person granted the microphone, or its `Info.plist`
        /// lacks `NSMicrophoneUsageDescription` (`AVAudioApplication.recordPermission` denied).
        case recordPermissionDenied
        /// The app has as many streams as it may (`.resourceNotAvailable`).
        case resourceNotAvailable
        /// The daemon's audio engine or the sound server is not there (`.mediaServicesFailed`).
        case mediaServicesFailed
        /// The stream is gone: the daemon closed it, or it never was.
        case streamClosed
        /// The app was not launched by backgrounderd, or has not checked in.
        case notConnected
        /// Anything else, such as the daemon failing at its own work (`.unspecified`).
        case unspecified
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, naming the field or request at fault.
    public var description: String

    /// Creates an error.
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
