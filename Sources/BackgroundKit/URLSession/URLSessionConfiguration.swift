/// How a session behaves, as `URLSessionConfiguration`. Only background sessions exist here:
/// their transfers are the daemon's, and go on while the app is suspended or not running.
public final class URLSessionConfiguration {
    /// The session's identifier: the app recreates a session with it to hear about its
    /// transfers after a relaunch.
    public let identifier: String?
    /// Wait for external power and a network, as on iOS. Transfers created while the app is
    /// in the background are discretionary whatever this says.
    public var isDiscretionary = false
    /// Launch (or wake) the app when the session's transfers are all finished, calling
    /// `ApplicationDelegate.application(_:handleEventsForBackgroundURLSession:completionHandler:)`.
    /// The daemon always does; kept for source compatibility.
    public var sessionSendsLaunchEvents = true

    private init(identifier: String) {
        self.identifier = identifier
    }

    /// A configuration for a background session, as `background(withIdentifier:)`.
    public static func background(withIdentifier identifier: String) -> URLSessionConfiguration {
        URLSessionConfiguration(identifier: identifier)
    }
}
