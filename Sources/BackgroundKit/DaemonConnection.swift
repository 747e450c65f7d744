import BackgrounderCore
public import BackgrounderProtocol

/// The connection an app (or a sample's command line) has to `backgrounderd`.
///
/// The socket comes from `BACKGROUNDER_SOCKET`, which the daemon sets for the apps it
/// launches, falling back to the daemon's default path.
public final class DaemonConnection {
    private let client: ControlClient

    /// What the daemon said about itself when the connection opened.
    public var daemonVersion: VersionInfo? { client.greeting }

    /// Connects and introduces the client.
    /// - Parameters:
    ///   - socketPath: The control socket; by default `BACKGROUNDER_SOCKET` or the daemon's default.
    ///   - clientName: A name for the daemon's log.
    /// - Throws: ``ControlClientError``, with `.daemonNotRunning` when no daemon listens.
    public init(socketPath: String = DefaultPaths.socket, clientName: String) throws(ControlClientError) {
        // Longer than the 10 s a remote command waits for its app, so that the daemon's
        // answer, even "did not answer", arrives rather than a timeout of this connection.
        client = try ControlClient(socketPath: socketPath, timeout: .seconds(20))
        let reply = try client.request(.hello(Hello(client: clientName)))
        if case .error(let error) = reply.body {
            throw .unreadableReply(error.description)
        }
    }

    /// The daemon's status.
    /// - Returns: The status.
    /// - Throws: ``ControlClientError`` when the daemon cannot answer.
    public func status() throws(ControlClientError) -> DaemonStatus {
        let reply = try client.request(.status)
        guard case .status(let status) = reply.body else {
            throw .unreadableReply("expected STATUS, got \(reply.className)")
        }
        return status
    }

    /// Sends a media command to an app with the `audio` mode, as a person's media keys do;
    /// the daemon wakes the app, or launches it into the background, to receive it.
    /// - Returns: What the daemon did.
    /// - Throws: ``ControlClientError``, `.refused` with the daemon's reason.
    public func send(_ command: RemoteCommand, to bundle: String, argument: String? = nil) throws(ControlClientError)
        -> String
    {
        let reply = try client.request(
            .remoteCommand(RemoteCommandRequest(bundle: BundleID(bundle), command: command, argument: argument)))
        switch reply.body {
        case .done(let done): return done.detail
        case .error(let error): throw .refused(error.message)
        default: throw .unreadableReply("expected OK, got \(reply.className)")
        }
    }

    /// Sends a media command and waits for the app's answer, as ``send(_:to:argument:)``.
    /// - Returns: What the daemon did and, in ``Done/handlerStatus``, what the app's handler
    ///   answered (anything but ``RemoteCommandHandlerStatus/success`` means it did not carry
    ///   the command out).
    /// - Throws: ``ControlClientError``, `.refused` with the daemon's reason, which includes
    ///   an app that did not answer within 10 s.
    public func perform(_ command: RemoteCommand, on bundle: String, argument: String? = nil)
        throws(ControlClientError) -> Done
    {
        let reply = try client.request(
            .remoteCommand(RemoteCommandRequest(bundle: BundleID(bundle), command: command, argument: argument)))
        switch reply.body {
        case .done(let done): return done
        case .error(let error): throw .refused(error.message)
        default: throw .unreadableReply("expected OK, got \(reply.className)")
        }
    }

    /// The audio engine's sessions and streams, for one app or all.
    public func audioStatus(bundle: String? = nil) throws(ControlClientError) -> AudioStatus {
        let reply = try client.request(.audio(AudioQuery(bundle: bundle.map { BundleID($0) })))
        switch reply.body {
        case .audioStatus(let status): return status
        case .error(let error): throw .refused(error.message)
        default: throw .unreadableReply("expected AUDIO_STATUS, got \(reply.className)")
        }
    }

    /// Every app and its state, as `bgctl ps`.
    public func apps() throws(ControlClientError) -> [AppInfo] {
        let reply = try client.request(.ps)
        switch reply.body {
        case .apps(let list): return list.apps
        case .error(let error): throw .refused(error.message)
        default: throw .unreadableReply("expected APPS, got \(reply.className)")
        }
    }

    /// Lets an app read files or folders where they lie, as `bgctl share`: what a person
    /// names on an app's command line (the person's process, not the app, chose them).
    /// - Parameters:
    ///   - paths: Absolute paths of files or folders.
    ///   - bundle: The app.
    /// - Returns: Everything now shared with the app.
    /// - Throws: ``ControlClientError``, `.refused` naming the path the daemon could not
    ///   open and why.
    public func share(_ paths: [String], with bundle: String) throws(ControlClientError) -> SharedFileList {
        let reply = try client.request(.share(ShareRequest(bundle: BundleID(bundle), paths: paths)))
        switch reply.body {
        case .shared(let list): return list
        case .error(let error): throw .refused(error.message)
        default: throw .unreadableReply("expected SHARED, got \(reply.className)")
        }
    }
}
