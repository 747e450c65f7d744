package import BackgrounderCore

/// One launch of an app: the connection the daemon hands it speaks for this launch only.
package struct AppLaunch: Sendable, Hashable, CustomStringConvertible {
    /// The app's bundle identifier.
    package var bundle: BundleID
    /// The process the daemon started for it.
    package var pid: Int32
    /// The user it runs as.
    package var uid: UInt32

    package var description: String { "\(bundle) (pid \(pid))" }

    /// Creates a value from its parts.
    package init(bundle: BundleID, pid: Int32, uid: UInt32) {
        self.bundle = bundle
        self.pid = pid
        self.uid = uid
    }
}
