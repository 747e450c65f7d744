import BackgrounderAppCore
import BackgrounderApps
import BackgrounderAudio
import BackgrounderCore
import BackgrounderLocation
import BackgrounderNotifications
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderScheduling
import BackgrounderSharing
import BackgrounderSystem
import BackgrounderTransfers
import Logging
import ServiceLifecycle

/// The daemon as a systemd service (`Type=notify`): `READY=1` once the control socket is
/// served, `STATUS=` with its apps and services, `WATCHDOG=1` only while the app core answers
/// (a hung core stops the pings, and systemd restarts the daemon), and `STOPPING=1` at
/// shutdown. Without `$NOTIFY_SOCKET` it only waits for shutdown.
final class SystemdService: Service {
    private let notifier: SystemdNotifier
    private let context: DaemonContext
    private let listening: AsyncStream<Void>
    private let logger: Logger
    /// The liveness check: the app core's status line, asked one question at a time.
    private let probe: LivenessProbe<String>
    /// How often STATUS is refreshed when there is no watchdog.
    static let statusInterval: Duration = .seconds(5)

    init(notifier: SystemdNotifier, context: DaemonContext, listening: AsyncStream<Void>, logger: Logger) {
        self.notifier = notifier
        self.context = context
        self.listening = listening
        self.logger = logger
        probe = LivenessProbe { [context] in await Self.statusLine(context) }
    }

    func run() async throws {
        guard notifier.isActive else {
            try? await gracefulShutdown()
            return
        }
        // Ready once the control socket is served.
        for await _ in listening { break }
        let watchdog = SystemdNotifier.watchdogInterval()
        notifier.notify(["READY=1", "STATUS=" + (await statusLine() ?? "starting")])
        logger.info("told systemd READY=1\(watchdog.map { "; watchdog every \($0)" } ?? "")")
        // Pinged at half the interval, as sd_watchdog_enabled(3) advises.
        let interval = watchdog.map { $0 / 2 } ?? Self.statusInterval
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                try? await BootSleep.sleep(for: interval)
                // The liveness check: the app core must answer within the interval.
                guard let status = await statusLine(within: interval) else {
                    logger.error("the app core did not answer within \(interval); no watchdog ping")
                    continue
                }
                notifier.notify((watchdog == nil ? [] : ["WATCHDOG=1"]) + ["STATUS=" + status])
            }
        } onGracefulShutdown: { [notifier] in
            notifier.notify(["STOPPING=1", "STATUS=stopping: ending apps"])
        }
    }

    /// `N running, M suspended; gpsd connected; PulseAudio connected`, from the app core, or
    /// `nil` when it does not answer within `limit` (see ``LivenessProbe``).
    private func statusLine(within limit: Duration = .seconds(5)) async -> String? {
        await probe.answer(within: limit)
    }

    /// The question the liveness check asks: the app core's list of apps, which only an app
    /// core that serves its actor can answer, with the services' states beside it.
    private static func statusLine(_ context: DaemonContext) async -> String {
        let list = await context.apps.list().apps
        let suspended = list.filter { $0.state == .suspended }.count
        let running = list.filter { $0.state != .suspended && $0.state != .notRunning }.count
        let gpsd = context.location.snapshot.connection.state
        let pulseAudio = context.capabilities.audioService.connection.state
        return
            "\(running) apps running, \(suspended) suspended; gpsd \(gpsd.rawValue); PulseAudio \(pulseAudio.rawValue)"
    }
}
