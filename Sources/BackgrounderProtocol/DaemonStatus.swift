public import BackgrounderCore

/// `STATUS` reply: what `bgctl status` shows.
public struct DaemonStatus: Sendable, Hashable, Codable {
    /// Backgrounder's release.
    public var version: String
    /// The protocol's major version.
    public var `protocol`: Int
    /// The daemon's process id.
    public var pid: Int32
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    /// The control socket's path.
    public var socket: String
    /// Where the state database lives.
    public var stateDirectory: String
    /// How many bundles loaded and how many were refused.
    public var bundles: BundleCounts
    /// The connection to gpsd.
    public var gpsd: ServiceConnection
    /// The connection to PulseAudio.
    public var pulseAudio: ServiceConnection
    /// The last position fix gpsd reported, if any.
    public var lastFix: Location?
    /// Seconds since the last fix was received.
    public var lastFixAgeSeconds: Double?
    /// Connected clients, this one included.
    public var clients: Int
    /// How apps are suspended: `cgroup` (the cgroup v2 freezer) or `signals` (SIGSTOP).
    public var suspension: String?
    /// The policy in force: `standard` or a plug-in's bundle identifier.
    public var policy: String?
    /// Whether the state database takes writes, and its last failure (a full disk).
    public var storage: StorageStatus?
    /// The app sandbox in force: `landlock v7, uid per app 2000000000-2000065535, no_new_privs`,
    /// what is missing and why, or `off (--sandbox off)`.
    public var sandbox: String?
    /// External power and network as the daemon last read them from the kernel.
    public var conditions: ConditionsStatus?
    /// What the kernel is told of each app's share: the cgroup controllers its cgroup has (or
    /// why none), and `oom_score_adj` by state.
    public var resources: String?
    /// The session and system buses and what the daemon found on them.
    public var desktop: DesktopStatus?

    /// Creates a status.
    public init(
        version: String = BackgrounderVersion.release,
        protocol: Int = ProtocolVersion.major,
        pid: Int32,
        uptimeSeconds: Double,
        socket: String,
        stateDirectory: String,
        bundles: BundleCounts,
        gpsd: ServiceConnection,
        pulseAudio: ServiceConnection,
        lastFix: Location? = nil,
        lastFixAgeSeconds: Double? = nil,
        clients: Int,
        suspension: String? = nil,
        policy: String? = nil,
        storage: StorageStatus? = nil,
        sandbox: String? = nil,
        conditions: ConditionsStatus? = nil,
        resources: String? = nil,
        desktop: DesktopStatus? = nil
    ) {
        self.desktop = desktop
        self.resources = resources
        self.conditions = conditions
        self.storage = storage
        self.sandbox = sandbox
        self.policy = policy
        self.suspension = suspension
        self.version = version
        self.protocol = `protocol`
        self.pid = pid
        self.uptimeSeconds = uptimeSeconds
        self.socket = socket
        self.stateDirectory = stateDirectory
        self.bundles = bundles
        self.gpsd = gpsd
        self.pulseAudio = pulseAudio
        self.lastFix = lastFix
        self.lastFixAgeSeconds = lastFixAgeSeconds
        self.clients = clients
    }
}

/// Bundle counts in a status.
public struct BundleCounts: Sendable, Hashable, Codable {
    /// Bundles that loaded.
    public var loaded: Int
    /// Bundles that were refused.
    public var refused: Int

    /// Creates counts.
    public init(loaded: Int, refused: Int) {
        self.loaded = loaded
        self.refused = refused
    }
}

/// The state of the daemon's connection to an outside server (gpsd, PulseAudio).
public struct ServiceConnection: Sendable, Hashable, Codable {
    /// Where the connection goes and how it is doing.
    public enum State: String, Sendable, Hashable, Codable {
        /// Not tried yet, or given up on for now; see `detail`.
        case disconnected
        /// A connection attempt is under way.
        case connecting
        /// Connected and receiving.
        case connected
    }

    /// The server address as configured (`127.0.0.1:2947`, `unix:/run/...`), or `default`.
    public var server: String
    /// How the connection is doing.
    public var state: State
    /// The last error, or what the server said about itself.
    public var detail: String?

    /// Creates a connection state.
    public init(server: String, state: State, detail: String? = nil) {
        self.server = server
        self.state = state
        self.detail = detail
    }
}
