/// How the daemon contains, freezes, thaws and kills an app's processes. Two exist: the
/// cgroup v2 freezer, and signals to the process group where no writable cgroup v2 is.
public protocol SuspensionMechanism: Sendable {
    /// `cgroup` or `signals`, for `bgctl status`.
    var name: String { get }

    /// Prepares a container for one app and returns the shell prologue that moves the
    /// launching process into it before it execs the app (empty when nothing is needed).
    func prepare(appID: String) throws -> AppContainer

    /// Freezes every process of the app and returns once they are frozen.
    func freeze(_ container: AppContainer, leader: Int32) throws

    /// Lets the app's processes run again.
    func thaw(_ container: AppContainer, leader: Int32) throws

    /// Kills every process of the app at once (SIGKILL semantics).
    func kill(_ container: AppContainer, leader: Int32) throws

    /// Whether `pid` belongs to the app (for checking who connects as it).
    func contains(_ pid: Int32, container: AppContainer, leader: Int32) -> Bool

    /// Releases the container after the app is gone.
    func release(_ container: AppContainer)
}

/// Where an app's processes live: a cgroup directory, or just a process group.
public struct AppContainer: Sendable, Hashable {
    /// The cgroup directory, or `nil` when signals are used.
    public var cgroupPath: String?
    /// Shell commands run in the launching process before `exec` (joins the cgroup).
    public var prologue: String
}
