public import BackgrounderCore

/// How the daemon contains, freezes, thaws and kills an app's processes. Two exist: the
/// cgroup v2 freezer, and signals to the process group where no writable cgroup v2 is.
public protocol SuspensionMechanism: Sendable {
    /// `cgroup` or `signals`, for `bgctl status`.
    var name: String { get }

    /// Prepares a container for one app; the app's first process joins it between fork and
    /// exec (writing to the cgroup's `cgroup.procs`), before it runs any code of its own.
    func prepare(appID: BundleID) throws -> AppContainer

    /// Asks every process of the app to stop, and returns without waiting for them: the
    /// caller may be the app core's actor, which must not block on the kernel.
    func freeze(_ container: AppContainer, leader: Int32) throws

    /// Waits, without blocking the caller's thread, until the freeze asked for is complete:
    /// every process stopped, not merely asked to.
    /// - Returns: `true` once frozen; `false` when the app was thawed first, or is gone.
    /// - Throws: ``DaemonError`` when it is still not frozen after 5 s.
    func waitUntilFrozen(_ container: AppContainer, leader: Int32) async throws -> Bool

    /// Lets the app's processes run again.
    func thaw(_ container: AppContainer, leader: Int32) throws

    /// Kills every process of the app at once (SIGKILL semantics).
    func kill(_ container: AppContainer, leader: Int32) throws

    /// Where a process lives, read from the kernel (for telling apps' processes from a
    /// person's). Throws when it cannot be read: the caller fails closed.
    func membership(of pid: Int32) throws -> ContainerMembership

    /// Releases the container after the app is gone.
    func release(_ container: AppContainer)
}

/// Where an app's processes live: a cgroup directory, or just a process group.
public struct AppContainer: Sendable, Hashable {
    /// The cgroup directory, or `nil` when signals are used (the app's session is its container).
    public var cgroupPath: String?

    /// Creates a container description.
    public init(cgroupPath: String?) {
        self.cgroupPath = cgroupPath
    }
}

/// Where a process lives, as far as app containers go.
public enum ContainerMembership: Sendable, Hashable {
    /// In the container of this app (or below it).
    case app(BundleID)
    /// In a container of apps, but not one this daemon can name: another daemon's app, or
    /// a group the daemon made for itself. Never a person.
    case unnamedApp(String)
    /// In this session (signals mechanism: each app leads its own session).
    case session(Int32)
    /// Outside every app container.
    case outside
}
