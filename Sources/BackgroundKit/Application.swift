public import BackgrounderCore
import BackgrounderProtocol
public import Foundation

/// Identifies a finite-length background task, as `UIBackgroundTaskIdentifier`.
public struct BackgroundTaskIdentifier: Sendable, Hashable, RawRepresentable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// No task: returned when the app has no background time left.
    public static let invalid = BackgroundTaskIdentifier(rawValue: 0)
}

/// What an app hears about its life cycle, as `UIApplicationDelegate`. Called on the main actor.
@MainActor
public protocol ApplicationDelegate: AnyObject {
    /// The app launched; `reason` says why (a person, or an event it registered for).
    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason)
    /// Memory is short: free what can be made again (caches, decoded images), as iOS's
    /// `applicationDidReceiveMemoryWarning`. Apps in the background hear it first; when
    /// memory stays short, the largest apps are ended without notice, and an app that freed
    /// memory is smaller when the daemon chooses.
    func applicationDidReceiveMemoryWarning(_ application: Application)
    /// The app came to the foreground and receives events.
    func applicationDidBecomeActive(_ application: Application)
    /// The app is about to leave the foreground.
    func applicationWillResignActive(_ application: Application)
    /// The app is in the background: save state; it will be suspended unless it holds an assertion.
    func applicationDidEnterBackground(_ application: Application)
    /// The app is about to come back to the foreground.
    func applicationWillEnterForeground(_ application: Application)
    /// The app is about to be terminated; it exits when this returns.
    func applicationWillTerminate(_ application: Application)
    /// An event the app registered for arrived while it was running (a push, a fetch window).
    /// The specific callbacks below follow it for events that open a window.
    func application(_ application: Application, didReceive event: LaunchReason)
    /// A background fetch window: fetch, then call the handler with what came of it, as soon
    /// as possible (the app is suspended when it does, or when the window runs out).
    func application(
        _ application: Application,
        performFetchWithCompletionHandler completionHandler: @escaping @MainActor (BackgroundFetchResult) -> Void)
    /// A silent push (`aps.content-available: 1`): fetch what it announces, then call the handler.
    func application(
        _ application: Application, didReceiveRemoteNotification userInfo: [String: JSONValue],
        fetchCompletionHandler completionHandler: @escaping @MainActor (BackgroundFetchResult) -> Void)
    /// The device token ``Application/registerForRemoteNotifications()`` asked for.
    func application(_ application: Application, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: String)
    /// Why no device token came.
    func application(_ application: Application, didFailToRegisterForRemoteNotificationsWithError error: any Error)
    /// The UnifiedPush endpoint for this app's pushes (the URL its server posts to), when the
    /// desktop's distributor gives one or changes it; Linux's counterpart of handing the
    /// device token to the app's server.
    func application(_ application: Application, didReceivePushEndpoint endpoint: String)
    /// Every transfer of the background session `identifier` is finished: recreate the
    /// session with that identifier to hear of them, keep the handler, and call it when the
    /// session's delegate hears `urlSessionDidFinishEvents` (the app is suspended then). The
    /// default calls it at once.
    func application(
        _ application: Application, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping @MainActor () -> Void)
}

extension ApplicationDelegate {
    public func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {}
    public func applicationDidReceiveMemoryWarning(_ application: Application) {}
    public func applicationDidBecomeActive(_ application: Application) {}
    public func applicationWillResignActive(_ application: Application) {}
    public func applicationDidEnterBackground(_ application: Application) {}
    public func applicationWillEnterForeground(_ application: Application) {}
    public func applicationWillTerminate(_ application: Application) {}
    public func application(_ application: Application, didReceive event: LaunchReason) {}
}

/// The app's side of the daemon, as `UIApplication`: its state, its launch reason, and
/// finite-length background tasks.
@MainActor
public final class Application {
    /// The one instance.
    public static let shared = Application()

    /// The delegate that hears about life-cycle changes.
    public private(set) var delegate: (any ApplicationDelegate)?
    /// The app's state as the daemon last said.
    public private(set) var applicationState: ApplicationState = .inactive
    /// Why the app was launched.
    public private(set) var launchReason: LaunchReason = .user
    /// The bundle identifier the daemon launched this process as.
    public let bundleIdentifier: String
    /// The app's own directory for what it keeps between launches (`BACKGROUNDER_DATA_DIR`,
    /// which the daemon creates under its state directory, 0700), or `nil` when not launched by it.
    public nonisolated static var dataDirectory: String? {
        ProcessInfo.processInfo.environment["BACKGROUNDER_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Where the daemon keeps an app's data directory, for an app's own command line run by a
    /// person (not by the daemon): `BACKGROUNDER_DATA_DIR` when set, else `STATE/data/ID`.
    /// - Parameters:
    ///   - identifier: The app's bundle identifier.
    ///   - stateDirectory: The daemon's `--state-dir`; by default its default.
    public nonisolated static func dataDirectory(forBundle identifier: String, stateDirectory: String? = nil) -> String
    {
        if stateDirectory == nil, let directory = dataDirectory { return directory }
        return (stateDirectory ?? DefaultPaths.stateDirectory) + "/data/" + identifier
    }

    private var expirationHandlers: [Int: @MainActor () -> Void] = [:]
    /// The events the app was launched for, from the check-in reply.
    private var launchEvents: [EventNotice] = []
    private var remainingAtNotice: (seconds: Double, at: ContinuousClock.Instant)?

    private init() {
        bundleIdentifier = ProcessInfo.processInfo.environment["BACKGROUNDER_BUNDLE_ID"] ?? ""
    }

    /// Connects to the daemon, checks in, tells the delegate it launched, and runs the main
    /// queue forever, as `UIApplicationMain`.
    /// - Parameter delegate: The app's delegate (kept alive by the application).
    public static func main(delegate: some ApplicationDelegate) -> Never {
        let application = Application.shared
        application.delegate = delegate
        do {
            try application.checkIn()
        } catch {
            FileHandle.standardError.write(Data("BackgroundKit: \(error)\n".utf8))
            exit(1)
        }
        delegate.application(application, didFinishLaunchingWith: application.launchReason)
        // The events it was launched for follow the launch.
        for event in application.launchEvents { application.dispatch(event) }
        application.launchEvents = []
        dispatchMain()
    }

    /// The checked-in connection, for the app's other managers.
    var daemonConnection: AppConnection? { Self.connectionForAudio }
    private var connection: AppConnection? { Self.connectionForAudio }

    /// The same connection from any thread, for audio streams. Kept in one place, behind a
    /// lock, since audio uses it off the main actor.
    nonisolated static var connectionForAudio: AppConnection? { sharedConnection.withLock { $0 } }
    private nonisolated static let sharedConnection = Locked<AppConnection?>(nil)

    private func checkIn() throws {
        guard !bundleIdentifier.isEmpty else {
            throw ControlClientError.unreadableReply(
                "BACKGROUNDER_BUNDLE_ID is not set: apps are launched by backgrounderd (`bgctl open ID`)")
        }
        let socketPath = ProcessInfo.processInfo.environment["BACKGROUNDER_SOCKET"] ?? DefaultPaths.socket
        let identifier = bundleIdentifier
        let connection = AppConnection(
            descriptor: try AppConnection.inherited(),
            reconnection: AppConnection.Reconnection(
                connect: { try DaemonSocket.connect(to: DefaultPaths.appSocket(forControlSocket: socketPath)) },
                patience: Self.reconnectionPatience,
                onReconnect: { Application.checkInAgain(bundle: identifier) }
            ),
            onNotice: { message in
                Task { @MainActor in Application.shared.handle(message) }
            },
            onClose: {
                // Without its daemon an app has no life cycle; end rather than run unsupervised.
                FileHandle.standardError.write(
                    Data("BackgroundKit: the daemon closed the connection and did not come back; exiting\n".utf8))
                exit(0)
            }
        )
        Self.sharedConnection.withLock { $0 = connection }
        let reply = try connection.request(.checkIn(CheckIn(bundle: BundleID(bundleIdentifier))))
        switch reply.body {
        case .checkedIn(let checkedIn):
            launchReason = checkedIn.launchReason
            applicationState = checkedIn.state
            launchEvents = checkedIn.events ?? []
            BGTaskScheduler.shared.checkedIn(on: connection)
        case .error(let error):
            throw ControlClientError.unreadableReply("check-in refused: \(error.message)")
        default:
            throw ControlClientError.unreadableReply("unexpected \(reply.className) to CHECKIN")
        }
    }

    /// How long an app waits for a daemon that went away (restarting, or killed and started
    /// again by systemd) before it ends.
    static let reconnectionPatience: Duration = .seconds(60)

    /// The daemon came back (it restarted and adopted this process): check in on the new
    /// connection, then bring back what the old daemon held only in memory.
    private nonisolated static func checkInAgain(bundle: String) {
        guard let connection = connectionForAudio else { return }
        let reply: DaemonMessage
        do {
            // The reply is handled in order with the notices: a transition the daemon sends
            // after it (the person pressing home just then) must reach the delegate after the
            // check-in's state, or the app would believe itself back in front.
            reply = try connection.request(.checkIn(CheckIn(bundle: BundleID(bundle)))) { reply in
                guard case .checkedIn(let checkedIn) = reply.body else { return }
                Task { @MainActor in Application.shared.reconnected(checkedIn, on: connection) }
            }
        } catch {
            // The socket answered and then closed: a daemon dying (its listening socket
            // outlives its connections by a moment) or one that failed to start. The reader
            // sees the close and tries again; only a refusal ends the app.
            FileHandle.standardError.write(
                Data("BackgroundKit: the daemon closed the connection during check-in (\(error)); trying again\n".utf8))
            return
        }
        guard case .checkedIn = reply.body else {
            // A daemon that did not adopt this process: it is not supervised, so it ends.
            let why = if case .error(let error) = reply.body { error.message } else { reply.className }
            FileHandle.standardError.write(Data("BackgroundKit: the new daemon refused the check-in: \(why)\n".utf8))
            exit(0)
        }
    }

    /// After a reconnection: the delegate hears the transitions it missed while the daemon was
    /// away, and each manager re-establishes its part (task registrations, queued fixes,
    /// background sessions, the audio session and streams).
    private func reconnected(_ checkedIn: CheckInReply, on connection: AppConnection) {
        let before = applicationState
        applicationState = checkedIn.state
        if let delegate {
            let wasInFront = before == .active || before == .inactive
            let isInFront = checkedIn.state == .active
            if wasInFront && !isInFront {
                delegate.applicationWillResignActive(self)
                delegate.applicationDidEnterBackground(self)
            } else if !wasInFront && isInFront {
                delegate.applicationWillEnterForeground(self)
                delegate.applicationDidBecomeActive(self)
            }
        }
        BGTaskScheduler.shared.checkedIn(on: connection)
        LocationManager.reconnected()
        URLSessionRegistry.shared.reattachAll()
        AudioSession.shared.mediaServicesWereReset()
        for event in checkedIn.events ?? [] { dispatch(event) }
    }

    private func handle(_ message: DaemonMessage) {
        switch message.body {
        case .lifecycle(let notice):
            applicationState = notice.state
            remainingAtNotice = notice.backgroundTimeRemaining.map { ($0, ContinuousClock.now) }
            guard let delegate else { return }
            switch notice.event {
            case .didBecomeActive: delegate.applicationDidBecomeActive(self)
            case .willResignActive: delegate.applicationWillResignActive(self)
            case .didEnterBackground: delegate.applicationDidEnterBackground(self)
            case .willEnterForeground: delegate.applicationWillEnterForeground(self)
            case .willTerminate:
                delegate.applicationWillTerminate(self)
                exit(0)
            }
        case .event(let event):
            dispatch(event)
        case .backgroundTime(let notice):
            remainingAtNotice = notice.backgroundTimeRemaining.map { ($0, ContinuousClock.now) }
        case .locations, .locationStatus, .authorization:
            LocationManager.receive(message)
        case .audioInterruption(let interruption):
            AudioSession.shared.receive(interruption)
        case .audioRouteChange(let change):
            AudioSession.shared.receive(change)
        case .memoryWarning:
            delegate?.applicationDidReceiveMemoryWarning(self)
        case .remoteCommand(let command):
            RemoteCommandCenter.shared.receive(command)
        case .transferUpdate(let transfer):
            URLSessionRegistry.shared.receive(transfer)
        case .pushToken(let token):
            if let endpoint = token.endpoint { delegate?.application(self, didReceivePushEndpoint: endpoint) }
        case .notificationWillPresent, .notificationResponse:
            UNUserNotificationCenter.current().receive(message)
        case .expire(let expire):
            for task in expire.tasks {
                expirationHandlers.removeValue(forKey: task)?()
            }
            for window in expire.windows ?? [] { BGTaskScheduler.shared.expire(window: window) }
        default:
            break
        }
    }

    /// Asks for background time to finish a task, as `beginBackgroundTask(withName:expirationHandler:)`.
    /// - Parameters:
    ///   - name: A name for logs and `bgctl ps`.
    ///   - expirationHandler: Called shortly before the time is up; it must end the task.
    /// - Returns: The task, or ``BackgroundTaskIdentifier/invalid`` when no time is left.
    public func beginBackgroundTask(
        withName name: String? = nil,
        expirationHandler: (@MainActor () -> Void)? = nil
    ) -> BackgroundTaskIdentifier {
        guard let connection,
            let reply = try? connection.request(.beginTask(BeginTask(name: name ?? "unnamed"))),
            case .task(let task) = reply.body, task.task != 0
        else { return .invalid }
        if let expirationHandler { expirationHandlers[task.task] = expirationHandler }
        return BackgroundTaskIdentifier(rawValue: task.task)
    }

    /// Ends a task begun with ``beginBackgroundTask(withName:expirationHandler:)``.
    public func endBackgroundTask(_ identifier: BackgroundTaskIdentifier) {
        guard identifier != .invalid, let connection else { return }
        expirationHandlers.removeValue(forKey: identifier.rawValue)
        _ = try? connection.request(.endTask(TaskReference(task: identifier.rawValue)))
    }

    /// Records that the daemon gave at least `seconds` of background time as of now (an event
    /// window); a background launch that had not heard its state yet is in the background.
    func noteBackgroundTime(atLeast seconds: Double) {
        if applicationState == .inactive { applicationState = .background }
        let known = remainingAtNotice.map { max(0, $0.seconds - (ContinuousClock.now - $0.at).seconds) }
        if known.map({ $0 < seconds }) ?? true {
            remainingAtNotice = (seconds, ContinuousClock.now)
        }
    }

    /// Seconds of background time left; effectively unlimited in the foreground, as on iOS.
    public var backgroundTimeRemaining: TimeInterval {
        guard applicationState == .background || applicationState == .suspended, let notice = remainingAtNotice else {
            return .greatestFiniteMagnitude
        }
        return max(0, notice.seconds - (ContinuousClock.now - notice.at).seconds)
    }
}
