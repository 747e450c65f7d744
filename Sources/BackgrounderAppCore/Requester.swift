package import BackgrounderCore
package import BackgrounderProtocol

/// Who sent a request that reached the core or a capability, as the control socket
/// established it when the connection was made; never what the client claims. Who may send
/// which request was decided before (``RequestAccess``): a person's request needs nothing
/// more, an app's needs to know which app.
package struct Requester: Sendable {
    /// The app whose connection checked in, or `nil` (a person, or an app before `CHECKIN`).
    package var bundle: BundleID?
    /// The request's wire name, for the refusal.
    package var request: String

    /// Creates a requester.
    package init(bundle: BundleID?, request: String) {
        self.bundle = bundle
        self.request = request
    }

    /// The app an app's request speaks for.
    /// - Throws: ``ProtocolError`` `notCheckedIn` before the connection's `CHECKIN`.
    package func app() throws(ProtocolError) -> BundleID {
        guard let bundle else { throw ProtocolError(.notCheckedIn, "\(request) needs a CHECKIN first") }
        return bundle
    }

    /// The app a person's request names, or else the app whose request it is.
    package func app(or named: BundleID?) throws(ProtocolError) -> BundleID {
        if let named { return named }
        return try app()
    }
}
