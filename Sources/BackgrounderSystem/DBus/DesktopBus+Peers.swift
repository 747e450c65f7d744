import BackgrounderCore

extension DesktopBus {
    /// Whose process a peer on the bus is, for a call that acts for the person (a media key,
    /// `Raise`) or a peer that would be trusted with apps' pushes (a distributor).
    ///
    /// Where an app can reach the session bus (a person's daemon: apps keep the person's
    /// uid), a bus peer may be one of its processes. The bus daemon read the peer's pid and
    /// uid from its socket when it connected (`GetConnectionCredentials`); the supervisor then
    /// says whether that process is an app's, as for the control socket. Anything that cannot
    /// be established is `unverifiable`, never a person.
    /// - Parameters:
    ///   - name: The peer's unique name (a message's sender, a well-known name's owner).
    ///   - connection: The connection to ask on, on the bus thread.
    ///   - done: Called once, on the bus thread, with the answer.
    package func owner(of name: String?, on connection: BusConnection, _ done: @escaping (ProcessOwner) -> Void) {
        guard let name else { return done(.unverifiable("the message names no sender")) }
        connection.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials",
            [.string(name)]
        ) { [self] result in
            let credentials = (try? result.get())?.first?.dictionaryValue ?? [:]
            guard let pid = credentials["ProcessID"]?.integerValue.flatMap(Int32.init(exactly:)) else {
                return done(.unverifiable("the bus did not say which process \(name) is"))
            }
            // No UnixUserID for a peer the bus admitted anonymously: the process's own counts.
            let uid = credentials["UnixUserID"]?.integerValue.flatMap(UInt32.init(exactly:))
            guard let peer = PeerProcess.of(pid: pid, uid: uid) else {
                return done(.unverifiable("\(name)'s process \(pid) is gone"))
            }
            done(identify(peer))
        }
    }
}

extension ProcessOwner {
    /// Why a bus peer with this owner may not act for the person (press a media key, answer a
    /// permission prompt), or `nil` when it may: only a process that is no app's.
    package var refusalToActForPerson: String? {
        switch self {
        case .none: nil
        case .app(let app): "the caller is a process of the app \(app)"
        case .unverifiable(let why): "the caller could not be verified (\(why))"
        }
    }
}
