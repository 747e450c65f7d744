import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers

#if canImport(Glibc)
    import Glibc
#endif

/// Decides who a peer on the public control socket is: a person only when it is of the
/// daemon's uid or root and provably outside every app's container; anything the daemon
/// cannot verify is not a person (fail closed).
struct PersonCheck: Sendable {
    let supervisor: Supervisor

    /// The principal a peer process speaks as.
    func principal(of peer: PeerProcess?) -> Principal {
        guard let peer else { return .untrusted("the kernel did not say who connected") }
        let own = geteuid()
        guard peer.uid == own || peer.uid == 0 else {
            return .untrusted("uid \(peer.uid) is neither the daemon's (\(own)) nor root")
        }
        switch supervisor.owner(of: peer) {
        case .none: return .person(uid: peer.uid, pid: peer.pid)
        case .app(let identifier): return .untrusted("pid \(peer.pid) is a process of the app \(identifier)")
        case .unverifiable(let why): return .untrusted(why)
        }
    }
}
