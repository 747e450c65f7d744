import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
public import BackgrounderCore
import BackgrounderLocation
import BackgrounderNotifications
public import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
public import BackgrounderSystem
import BackgrounderTransfers
import Foundation

/// Everything the daemon needs to know before it starts, from its command line.
public struct DaemonConfiguration: Sendable {
    /// Directories holding `Name.bundle` directories, searched in order (an earlier one wins
    /// for an identifier two of them hold).
    public var bundleDirectories: [String]
    /// Those of ``bundleDirectories`` that may be missing without a word: the default search
    /// path (``BundleSearchPath``), where most machines have only some of the directories. A
    /// missing directory given with `--bundles` is still reported at every scan.
    public var optionalBundleDirectories: Set<String> = []
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
    /// Bounds on what one app can make the daemon do or keep.
    public var limits: AppLimits
    /// Whether apps are sandboxed (docs/SANDBOX.md).
    public var sandbox: SandboxChoice
    /// The scheduling numbers of the standard policy (windows, fetch, push budget).
    public var scheduling = SchedulingPolicy()
    /// Where the kernel's boot id is read: force-quit marks end with the boot they were made in.
    public var bootIDPath = "/proc/sys/kernel/random/boot_id"
    /// The kernel's power-supply class, or a directory tree of the same shape (tests).
    public var powerSupplyDirectory = "/sys/class/power_supply"
    /// Time between two readings of power and network (docs in ConditionMonitor.swift).
    public var conditionsInterval: Duration = .seconds(5)
    /// PEM files of certificate authorities background transfers trust besides the system's.
    public var trustedCertificates: [String] = []
    /// Whether a graceful shutdown leaves the apps running for the next daemon to adopt
    /// (`--live-restore`) rather than ending them.
    public var liveRestore = false
    /// Whether a background player is frozen between refills of its audio ring
    /// (``RefillFreeze``; `--no-refill-freeze` keeps it running, for comparison).
    public var freezesBetweenRefills = true
    /// Whether a person's daemon leaves its apps in the person's PID namespace
    /// (`--shared-pid-namespace`, for debugging) rather than giving each its own.
    public var sharedPidNamespace = false
    /// Bytes set aside on the state directory's file system for the daemon's own commits
    /// (`--state-reserve`), so an app that fills it does not stop the daemon; 0 for none.
    public var stateReserveBytes = 16 << 20
    /// Each app's data directory holds at most this many bytes (`--app-data-quota`), where
    /// a root daemon can give it a volume of its own; 0 for no quota, `nil` for a quarter of
    /// the state directory's file system.
    public var appDataQuotaBytes: Int?
    /// Connections served at once through the daemon's sockets (`--max-connections`), a bound
    /// on what peers can make it hold; the connection it hands each app at launch is not one.
    public var maximumConnections = 512
    /// The person's music folder, shared read-only with an app the person allows into their
    /// music library (`--music-directory`; by default `XDG_MUSIC_DIR`, else `~/Music`);
    /// `nil` for none.
    public var musicDirectory: String? = DaemonConfiguration.defaultMusicDirectory

    /// The daemon user's music folder, as xdg-user-dirs records it.
    public static var defaultMusicDirectory: String? {
        let environment = ProcessInfo.processInfo.environment
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let userDirs = try? String(contentsOfFile: config + "/user-dirs.dirs", encoding: .utf8)
        return UserDirectories.music(userDirs: userDirs, home: home)
    }

    /// How apps are suspended.
    public enum SuspensionChoice: String, Sendable, CaseIterable {
        /// The cgroup v2 freezer where a writable cgroup v2 exists, else signals.
        case auto
        /// The cgroup v2 freezer, or refuse to start.
        case cgroup
        /// SIGSTOP/SIGCONT of each app's process group.
        case signals
    }

    /// Whether apps are sandboxed (`--sandbox`).
    public typealias SandboxChoice = BackgrounderCore.SandboxChoice

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
        watchesMemoryPressure: Bool = true,
        limits: AppLimits = AppLimits(),
        sandbox: SandboxChoice = .auto
    ) {
        self.limits = limits
        self.sandbox = sandbox
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
