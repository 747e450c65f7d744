import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers

/// Who speaks on a connection, as the daemon established it when the connection was made;
/// never what the client claims.
enum Principal: Sendable, Hashable, CustomStringConvertible {
    /// A person: a process outside every app's container, of the daemon's uid or root, on
    /// the public control socket.
    case person(uid: UInt32, pid: Int32)
    /// An app, on the connection the daemon handed it at launch (or, after a restart, from
    /// its lead process on the app socket).
    case app(AppLaunch)
    /// A peer on the public socket that may not act as a person, and why (a process of an
    /// app, another user, or one the daemon could not verify).
    case untrusted(String)

    var description: String {
        switch self {
        case .person(let uid, let pid): "a person (uid \(uid), pid \(pid))"
        case .app(let launch): "the app \(launch)"
        case .untrusted(let why): "an unverified peer (\(why))"
        }
    }

    /// What `HELLO` answers: the peer as the daemon sees it.
    var helloReply: HelloReply {
        switch self {
        case .person(let uid, let pid): HelloReply(pid: pid, uid: uid)
        case .app(let launch): HelloReply(pid: launch.pid, uid: launch.uid)
        // Nothing the daemon could vouch for.
        case .untrusted: HelloReply(pid: 0, uid: UInt32.max)
        }
    }

    /// Why this principal may not send `message`, or `nil` when it may (the matrix is
    /// ``RequestAccess``).
    /// - Parameters:
    ///   - message: The request.
    ///   - name: Its class's wire name, as it came (to name it in the refusal).
    func refusal(of message: ClientMessage, named name: String) -> ProtocolError? {
        switch (message.body.access, self) {
        case (.anyone, _), (.person, .person), (.app, .app):
            return nil
        case (.person, .app(let launch)):
            return ProtocolError(
                .notPermitted, "\(name) is a person's request (bgctl); \(launch.bundle), an app, may not send it")
        case (.person, .untrusted(let why)):
            return ProtocolError(
                .notPermitted, "\(name) is a person's request (bgctl), and this connection is not a person's: \(why)")
        case (.app, _):
            return ProtocolError(
                .notPermitted,
                "\(name) is an app's request; it comes only on the connection the daemon hands an app at launch (BACKGROUNDER_FD), or from the app's lead process on the app socket after a restart"
            )
        }
    }
}
