public import ArgumentParser
import BackgrounderCore
import BackgrounderDaemon
import BackgrounderProtocol
import Foundation
import Logging

/// The Backgrounder daemon: loads app bundles, serves the control socket, follows gpsd and
/// PulseAudio, and stops gracefully on SIGTERM or SIGINT.
@main
struct Backgrounderd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backgrounderd",
        abstract: "Runs apps from plug-in bundles with iOS-style background execution.",
        version: BackgrounderVersion.release
    )

    @Option(
        name: .customLong("bundles"),
        help: ArgumentHelp("A directory of Name.bundle directories (repeatable).", valueName: "DIR")
    )
    var bundleDirectories: [String] = []

    @Option(
        help: ArgumentHelp(
            "The control socket (default: $BACKGROUNDER_SOCKET, else $XDG_RUNTIME_DIR/backgrounder/backgrounderd.sock).",
            valueName: "PATH"))
    var socket: String?

    @Option(
        name: .customLong("state-dir"),
        help: ArgumentHelp("Where the state database lives (default: $XDG_STATE_HOME/backgrounder).", valueName: "DIR"))
    var stateDirectory: String?

    @Option(help: ArgumentHelp("gpsd's address.", valueName: "HOST:PORT"))
    var gpsd = "127.0.0.1:2947"

    @Option(
        name: .customLong("pulse-server"),
        help: ArgumentHelp("The PulseAudio server (default: libpulse's own choice).", valueName: "SERVER"))
    var pulseServer: String?

    @Option(
        name: .customLong("task-budget"),
        help: ArgumentHelp(
            "Seconds of background time for finite-length tasks (iOS: 30; classic: 180).", valueName: "SECONDS"))
    var taskBudget: Double = 30

    @Option(
        name: .customLong("expiration-warning"),
        help: ArgumentHelp("Seconds before the budget ends that expiration handlers run.", valueName: "SECONDS"))
    var expirationWarning: Double = 5

    @Option(
        name: .customLong("suspend-grace"),
        help: ArgumentHelp(
            "Seconds an app with no assertion runs in the background before it is suspended.", valueName: "SECONDS"))
    var suspendGrace: Double = 5
    @Option(
        name: .customLong("crash-loop-window"),
        help: ArgumentHelp("Seconds in which five crashes throttle an app's launches.", valueName: "SECONDS"))
    var crashLoopWindow: Double = 10

    @Option(help: "How apps are suspended: auto (cgroup v2 freezer when writable, else signals), cgroup, or signals.")
    var suspension: DaemonConfiguration.SuspensionChoice = .auto

    @Option(help: ArgumentHelp("A policy plug-in bundle's identifier (default: the standard policy).", valueName: "ID"))
    var policy: String?

    @Flag(
        name: .customLong("ignore-memory-pressure"),
        help: "Do not end suspended apps when the kernel reports memory pressure (PSI)."
    )
    var ignoreMemoryPressure = false

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        for (flag, value) in [
            ("--task-budget", taskBudget), ("--expiration-warning", expirationWarning),
            ("--suspend-grace", suspendGrace), ("--crash-loop-window", crashLoopWindow),
        ]
        where !(value.isFinite && value >= 0) {
            throw ValidationError("\(flag) must be a number of seconds, 0 or more")
        }
    }

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        var logger = Logger(label: "backgrounderd")
        logger[metadataKey: "pid"] = "\(getpid())"
        // Absolute paths: apps are started in their bundle directory, and logs should say
        // exactly which file is meant.
        func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }
        let configuration = DaemonConfiguration(
            bundleDirectories: (bundleDirectories.isEmpty ? [DefaultPaths.bundlesDirectory] : bundleDirectories).map(
                absolute),
            socketPath: absolute(socket ?? DefaultPaths.socket),
            stateDirectory: absolute(stateDirectory ?? DefaultPaths.stateDirectory),
            gpsdAddress: gpsd,
            pulseServer: pulseServer,
            policy: StandardPolicy(
                suspendGrace: .seconds(suspendGrace),
                taskBudget: .seconds(taskBudget),
                expirationWarning: .seconds(expirationWarning),
                crashLoopWindow: .seconds(crashLoopWindow)
            ),
            suspension: suspension,
            policyBundle: policy,
            watchesMemoryPressure: !ignoreMemoryPressure
        )
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
