public import ArgumentParser
import BackgrounderCore
import BackgrounderDaemon
import BackgrounderProtocol
import BackgrounderSystem
import Foundation
import Logging

/// The Backgrounder daemon: loads app bundles, serves the control socket, follows gpsd and
/// PulseAudio, and stops gracefully on SIGTERM or SIGINT.
struct Backgrounderd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backgrounderd",
        abstract: "Runs apps from plug-in bundles with iOS-style background execution.",
        discussion: """
            Stops on SIGTERM or SIGINT (exit 0); exits 1 when it cannot start, naming the option, \
            path or service at fault, and 64 for a wrong command line. bgctl drives it; \
            docs/ARCHITECTURE.md says how it works.

            Examples:
              backgrounderd
              backgrounderd --bundles Bundles --socket /tmp/bg/bg.sock --state-dir /tmp/bg
              backgrounderd --task-budget 180 --log-level debug
            """,
        version: BackgrounderVersion.release
    )

    @Option(
        name: .customLong("bundles"),
        help: ArgumentHelp(
            "A directory of Name.bundle directories (repeatable; an earlier one wins for an identifier two hold). Default: \(BundleSearchPath.summary), each skipped while missing.",
            valueName: "DIR")
    )
    var bundleDirectories: [String] = []

    @Option(
        help: ArgumentHelp(
            "The control socket; the apps' and audio sockets go beside it (default: \(DefaultPaths.socketRule)).",
            valueName: "PATH"))
    var socket: String?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp(
            "Where the state database, app logs and data live (default: $XDG_STATE_HOME/backgrounder, else ~/.local/state/backgrounder).",
            valueName: "DIR"))
    var stateDirectory: String?

    @Option(help: ArgumentHelp("gpsd's address.", valueName: "HOST:PORT"))
    var gpsd = "127.0.0.1:2947"

    @Option(
        name: .customLong("pulse-server"),
        help: ArgumentHelp("The PulseAudio server (default: libpulse's own choice).", valueName: "SERVER"))
    var pulseServer: String?

    @Option(
        name: .customLong("task-budget"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds of background time for finite-length tasks (iOS: 30; classic: 180).", valueName: "SECONDS"))
    var taskBudget: Double = 30

    @Option(
        name: .customLong("expiration-warning"), parsing: .unconditional,
        help: ArgumentHelp("Seconds before the budget ends that expiration handlers run.", valueName: "SECONDS"))
    var expirationWarning: Double = 5

    @Option(
        name: .customLong("suspend-grace"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds an app with no assertion runs in the background before it is suspended.", valueName: "SECONDS"))
    var suspendGrace: Double = 5
    @Option(
        name: .customLong("crash-loop-window"), parsing: .unconditional,
        help: ArgumentHelp("Seconds in which five crashes throttle an app's launches.", valueName: "SECONDS"))
    var crashLoopWindow: Double = 10

    @Option(
        name: .customLong("audio-silence-limit"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds of silence after which a background player's stream no longer counts as playing, so the app is suspended; 0 for no limit.",
            valueName: "SECONDS"))
    var audioSilenceLimit: Double = StandardPolicy.defaultAudioSilenceLimit.seconds

    @Option(
        name: .customLong("check-in-deadline"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds an app launched into the background may run without checking in before it is suspended.",
            valueName: "SECONDS"))
    var checkInDeadline: Double = 10

    @Option(
        name: .customLong("app-process-limit"),
        help: ArgumentHelp(
            "The most processes one app may have at once, where apps run under uids of their own (a root daemon).",
            valueName: "COUNT"))
    var appProcessLimit: Int = AppLimits.defaultProcesses

    @Option(
        name: .customLong("app-memory-limit"),
        help: ArgumentHelp(
            "The most memory one app may use (suffix K, M or G: 1024s); by default half the machine's.",
            valueName: "SIZE"))
    var appMemoryLimit: String?

    @Option(
        name: .customLong("app-log-limit"),
        help: ArgumentHelp(
            "Bytes of output kept per app log before it is rotated to ID.log.1 (suffix K, M or G: 1024s).",
            valueName: "SIZE"))
    var appLogLimit: String = "16M"

    @Option(help: "How apps are suspended: auto (cgroup v2 freezer when writable, else signals), cgroup, or signals.")
    var suspension: DaemonConfiguration.SuspensionChoice = .auto

    @Option(
        help:
            "How apps are sandboxed: auto (the strongest this system offers: Landlock, a uid per app under root, no_new_privs) or off (for comparison and debugging)."
    )
    var sandbox: DaemonConfiguration.SandboxChoice = .auto

    @Option(help: ArgumentHelp("A policy plug-in bundle's identifier (default: the standard policy).", valueName: "ID"))
    var policy: String?

    @Flag(
        name: .customLong("ignore-memory-pressure"),
        help: "Do not end suspended apps when the kernel reports memory pressure (PSI)."
    )
    var ignoreMemoryPressure = false

    @Option(
        name: .customLong("scheduling"),
        help: ArgumentHelp(
            "Scheduling numbers of the standard policy, KEY=SECONDS (or a count) separated by commas, for example fetchWindow=30,pushBurst=3 (keys: \(SchedulingOverrides.keys.joined(separator: ", "))).",
            valueName: "KEY=VALUE,..."))
    var scheduling: [String] = []

    @Option(
        name: .customLong("power-supply-dir"),
        help: ArgumentHelp(
            "The kernel's power-supply class, read for external power (a tree of the same shape for tests).",
            valueName: "DIR"))
    var powerSupplyDirectory = "/sys/class/power_supply"

    @Option(
        name: .customLong("conditions-interval"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds between two readings of external power and network, only where the kernel's notices of a change (rtnetlink, uevents) are unavailable.",
            valueName: "SECONDS"))
    var conditionsInterval: Double = 5

    @Option(
        name: .customLong("trust-ca-file"),
        help: ArgumentHelp(
            "A PEM file of certificate authorities background transfers trust besides the system's (repeatable).",
            valueName: "FILE"))
    var trustedCertificates: [String] = []

    @Flag(
        name: .customLong("shared-pid-namespace"),
        help:
            "Under a person's daemon, let apps share the person's PID namespace and /proc (to debug one with gdb, strace or ps); by default each has its own."
    )
    var sharedPidNamespace = false

    @Option(
        name: .customLong("state-reserve"),
        help: ArgumentHelp(
            "Space kept on the state directory's file system for the daemon's own records, given up when apps fill the disk so the daemon keeps committing (suffix K, M or G: 1024s; 0 for none).",
            valueName: "SIZE"))
    var stateReserve: String = "16M"

    @Option(
        name: .customLong("app-data-quota"),
        help: ArgumentHelp(
            "The most an app's data directory may hold, as a volume of its own under a root daemon (suffix K, M or G: 1024s; 0 for none); by default a quarter of the state directory's file system.",
            valueName: "SIZE"))
    var appDataQuota: String?

    @Option(
        name: .customLong("max-connections"),
        help: ArgumentHelp(
            "Connections served at once through the control and app sockets, from people, scripts and apps reconnecting (each person or app may hold 64 of them); the connection each app is handed at launch is not counted.",
            valueName: "N"))
    var maxConnections = 512

    @Flag(
        name: .customLong("live-restore"),
        help: ArgumentHelp(
            "On SIGTERM, leave the apps running (suspended ones frozen) for the next daemon to adopt, as a restart or upgrade under systemd needs (the unit passes it); without it, apps are ended. Apps left by a daemon that was killed are adopted either way."
        ))
    var liveRestore = false

    @Flag(
        name: .customLong("no-refill-freeze"),
        help: ArgumentHelp(
            "Keep a background player running between refills of its audio ring, rather than frozen until the ring runs low (for comparison; docs/AUDIO.md)."
        ))
    var noRefillFreeze = false

    @Option(
        name: .customLong("music-directory"),
        help: ArgumentHelp(
            "The person's music folder, shared read-only with an app the person allows into their music library (default: XDG_MUSIC_DIR from user-dirs.dirs, else ~/Music; '' for none).",
            valueName: "PATH"))
    var musicDirectory: String?

    @Option(name: .customLong("boot-id-file"), help: .hidden)
    var bootIDFile = "/proc/sys/kernel/random/boot_id"

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        for (flag, value) in [
            ("--task-budget", taskBudget), ("--expiration-warning", expirationWarning),
            ("--suspend-grace", suspendGrace), ("--crash-loop-window", crashLoopWindow),
            ("--check-in-deadline", checkInDeadline), ("--audio-silence-limit", audioSilenceLimit),
        ]
        where !(value.isFinite && value >= 0) {
            throw ValidationError("\(flag) must be a number of seconds, 0 or more, not \(value)")
        }
        guard conditionsInterval.isFinite, conditionsInterval > 0 else {
            throw ValidationError("--conditions-interval must be a number of seconds greater than 0, such as 5 or 0.5")
        }
        _ = try SchedulingOverrides.apply(scheduling, to: SchedulingPolicy())
        guard appProcessLimit >= 1 else {
            throw ValidationError("--app-process-limit must be a count of processes, 1 or more, not \(appProcessLimit)")
        }
        if let appMemoryLimit, (Self.bytes(appMemoryLimit) ?? 0) < 16 << 20 {
            throw ValidationError(
                "--app-memory-limit must be a size in bytes of 16M or more, such as 512M or 4G, not \(appMemoryLimit)")
        }
        guard stateReserve == "0" || Self.bytes(stateReserve) != nil else {
            throw ValidationError(
                "--state-reserve must be 0 or a size in bytes of 4K or more, such as 16M, not \(stateReserve)")
        }
        if let appDataQuota, appDataQuota != "0", (Self.bytes(appDataQuota) ?? 0) < 16 << 20 {
            throw ValidationError(
                "--app-data-quota must be 0 or a size in bytes of 16M or more, such as 512M or 4G, not \(appDataQuota)")
        }
        guard maxConnections >= 1 else {
            throw ValidationError("--max-connections must be a count of connections, 1 or more, not \(maxConnections)")
        }
        guard Self.bytes(appLogLimit) != nil else {
            throw ValidationError("--app-log-limit must be a size in bytes of 4K or more, such as 65536, 512K or 16M")
        }
    }

    /// A size such as `65536`, `512K`, `16M` or `1G`, in bytes; `nil` unless at least 4 KiB.
    static func bytes(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text.uppercased())
        var unit = 1
        if let last = digits.last, let multiplier = units[last] {
            unit = multiplier
            digits = digits.dropLast()
        }
        guard let value = Int(digits), value > 0, value <= Int.max / unit, value * unit >= 4096 else { return nil }
        return value * unit
    }

    func run() async throws {
        let level = logLevel
        let journal = JournalLogHandler.isJournal(environment: ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { label in
            // Under systemd, lines carry their priority for journald; otherwise plain lines.
            var handler: any LogHandler =
                journal ? JournalLogHandler(label: label, level: level) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            // Apps control some of what is logged; no control sequence reaches the log.
            return EscapingLogHandler(handler)
        }
        var logger = Logger(label: "backgrounderd")
        logger[metadataKey: "pid"] = "\(getpid())"
        // Absolute paths: apps are started in their bundle directory, and logs should say
        // exactly which file is meant.
        func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        // Without --bundles, the XDG search path, whose missing directories are no news.
        let searchPath = (bundleDirectories.isEmpty ? DefaultPaths.bundleDirectories : []).map(absolute)
        var configuration = DaemonConfiguration(
            bundleDirectories: bundleDirectories.isEmpty ? searchPath : bundleDirectories.map(absolute),
            socketPath: absolute(socket ?? DefaultPaths.socket),
            stateDirectory: absolute(stateDirectory ?? DefaultPaths.stateDirectory),
            gpsdAddress: gpsd,
            pulseServer: pulseServer,
            policy: StandardPolicy(
                suspendGrace: .seconds(suspendGrace),
                taskBudget: .seconds(taskBudget),
                expirationWarning: .seconds(expirationWarning),
                crashLoopWindow: .seconds(crashLoopWindow),
                audioSilenceLimit: audioSilenceLimit > 0 ? .seconds(audioSilenceLimit) : nil
            ),
            suspension: suspension,
            policyBundle: policy,
            watchesMemoryPressure: !ignoreMemoryPressure,
            limits: AppLimits(
                checkInDeadline: .seconds(checkInDeadline),
                appLogBytes: Self.bytes(appLogLimit) ?? AppLimits.defaultAppLogBytes,
                processes: appProcessLimit,
                memory: appMemoryLimit.flatMap(Self.bytes) ?? AppLimits.defaultMemory),
            sandbox: sandbox
        )
        configuration.optionalBundleDirectories = Set(searchPath)
        configuration.scheduling = try SchedulingOverrides.apply(scheduling, to: SchedulingPolicy())
        configuration.bootIDPath = bootIDFile
        configuration.powerSupplyDirectory = absolute(powerSupplyDirectory)
        configuration.conditionsInterval = .seconds(conditionsInterval)
        configuration.trustedCertificates = trustedCertificates.map(absolute)
        configuration.liveRestore = liveRestore
        configuration.freezesBetweenRefills = !noRefillFreeze
        configuration.stateReserveBytes = Self.bytes(stateReserve) ?? 0
        configuration.appDataQuotaBytes = appDataQuota.map { Self.bytes($0) ?? 0 }
        configuration.maximumConnections = maxConnections
        configuration.sharedPidNamespace = sharedPidNamespace
        if let musicDirectory { configuration.musicDirectory = musicDirectory.isEmpty ? nil : absolute(musicDirectory) }
        if !Main.onOvercommitQueue {
            logger.warning(
                "Swift Concurrency stays on libdispatch's default queue (no overcommit queue): its pool monitor wakes the daemon once a second"
            )
        }
        do {
            try await Daemon(configuration: configuration, logger: logger).run()
        } catch let error as DaemonError {
            logger.critical("\(error)")
            throw ExitCode.failure
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

extension DaemonConfiguration.SuspensionChoice: ExpressibleByArgument {}

extension DaemonConfiguration.SandboxChoice: ExpressibleByArgument {}
