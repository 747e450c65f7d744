public import BackgrounderCore
public import BackgrounderProtocol

/// Everything the daemon needs to know before it starts, from its command line.
public struct DaemonConfiguration: Sendable {
    /// Directories holding `Name.bundle` directories.
    public var bundleDirectories: [String]
    /// The control socket.
    public var socketPath: String
    /// Where the state database lives.
    public var stateDirectory: String
    /// gpsd's `HOST:PORT`.
    public var gpsdAddress: String
    /// The PulseAudio server, or `nil` for libpulse's default.
    public var pulseServer: String?
    /// The standard policy's numbers.
    public var policy: StandardPolicy
    /// How apps are suspended.
    public var suspension: SuspensionChoice
    /// A policy plug-in bundle's identifier, or `nil` for the standard policy.
    public var policyBundle: String?
    /// Whether the kernel's memory-pressure signal (PSI) ends suspended apps.
    public var watchesMemoryPressure: Bool

    /// How apps are suspended.
    public enum SuspensionChoice: String, Sendable, CaseIterable {
        /// The cgroup v2 freezer where a writable cgroup v2 exists, else signals.
        case auto
        /// The cgroup v2 freezer, or refuse to start.
        case cgroup
        /// SIGSTOP/SIGCONT of each app's process group.
        case signals
    }

    /// Creates a configuration; every parameter defaults to the XDG locations and gpsd's port.
    public init(
        bundleDirectories: [String] = [DefaultPaths.bundlesDirectory],
        socketPath: String = DefaultPaths.socket,
        stateDirectory: String = DefaultPaths.stateDirectory,
        gpsdAddress: String = "127.0.0.1:2947",
        pulseServer: String? = nil,
        policy: StandardPolicy = StandardPolicy(),
        suspension: SuspensionChoice = .auto,
        policyBundle: String? = nil,
        watchesMemoryPressure: Bool = true
    ) {
        self.watchesMemoryPressure = watchesMemoryPressure
        self.policyBundle = policyBundle
        self.policy = policy
        self.suspension = suspension
        self.bundleDirectories = bundleDirectories
        self.socketPath = socketPath
        self.stateDirectory = stateDirectory
        self.gpsdAddress = gpsdAddress
        self.pulseServer = pulseServer
    }
}
