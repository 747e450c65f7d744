/// Where the daemon keeps apps' files under its state directory: one layout for the
/// supervisor that makes them and for what moves them (an identity kept aside).
package struct AppDirectories: Sendable {
    /// Each app's data directory is `data/ID`.
    package let data: String
    /// Each app's `TMPDIR` is `tmp/ID`.
    package let temporary: String
    /// Each app's log is `logs/ID.log`.
    package let logs: String
    /// The data of identities kept aside (`retired/ID`), out of every app's reach.
    package let retired: String

    package init(stateDirectory: String) {
        data = stateDirectory + "/data"
        temporary = stateDirectory + "/tmp"
        logs = stateDirectory + "/logs"
        retired = stateDirectory + "/retired"
    }
}
