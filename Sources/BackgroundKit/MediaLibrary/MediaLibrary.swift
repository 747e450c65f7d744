import BackgrounderCore
public import BackgrounderProtocol

/// The person's music library, as `MPMediaLibrary`: an app that declares
/// `NSAppleMusicUsageDescription` asks, the person is asked once (`bgctl prompts`, or a
/// notification on the desktop), and once they allow it the music folder is shared with the
/// app, read-only: its files open through ``SharedFiles``, and nothing else of the person's does.
@MainActor
public enum MediaLibrary {
    /// What a person decided (`status`), and where the music is once they allowed it
    /// (`folder`, or a `note` saying why there is none).
    public typealias Authorization = MediaLibraryStatus

    /// Asks for the music library, as `MPMediaLibrary.requestAuthorization`. The first time,
    /// the person is asked and the answer is `notDetermined`: ask again later (when the
    /// person next wants the library) to hear their decision.
    /// - Throws: ``ProtocolError``: `notAuthorized` when the Info.plist has no
    ///   `NSAppleMusicUsageDescription`, `unavailable` when the app has not checked in.
    public static func requestAuthorization() throws -> Authorization {
        guard let connection = Application.shared.daemonConnection else {
            throw ProtocolError(.unavailable, "the app has not checked in with backgrounderd")
        }
        let reply = try connection.request(.requestMediaLibraryAuthorization).body
        switch reply {
        case .mediaLibrary(let status):
            return status
        case .error(let error):
            throw error
        default:
            throw ProtocolError(.failed, "unexpected reply to MEDIA_LIBRARY_AUTHORIZATION")
        }
    }
}
