import BackgroundKit
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

// A deliberately configurable app for the life-cycle tests. Its behaviour comes from the
// `TestAppBehavior` key of its own Info.plist (the daemon starts apps in their bundle), so
// one executable serves as a well-behaved app, a stubborn one and a crashing one.

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// CLOCK_REALTIME in nanoseconds, for the relaunch benchmark (bgbench relaunch).
func nanosecondsNow() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_REALTIME, &time)
    return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
}

/// When main began: the relaunch benchmark splits its time there (`TestAppStampsMain`).
let mainStarted = nanosecondsNow()

// The baseline of the relaunch benchmark: a plain fork/exec of this binary, to main.
if ProcessInfo.processInfo.environment["BGBENCH_EXEC_BASELINE"] != nil {
    say("t=\(mainStarted)")
    exit(0)
}

// The child of the `hog-child` behaviour: the memory is held here, not by the app's lead
// process, so only sizing the app as a whole (its cgroup or session) sees it.
if ProcessInfo.processInfo.environment["TESTAPP_HOG_CHILD"] != nil {
    let hog = UnsafeMutableRawPointer.allocate(byteCount: 64 << 20, alignment: 4096)
    memset(hog, 1, 64 << 20)
    say("child holding 64 MiB")
    while true { pause() }
}

/// Burns CPU for as long as the process runs: `clock_gettime` is a call the compiler cannot
/// drop, so the loop stays a loop.
func spinForever() -> Never {
    while true { _ = nanosecondsNow() }
}

// The child of the `spin` behaviour: it spins too, so a suspension that missed the app's
// children shows as CPU time the child went on using.
if ProcessInfo.processInfo.environment["TESTAPP_SPIN_CHILD"] != nil {
    spinForever()
}

struct Manifest: Decodable {
    var CFBundleIdentifier: String?
    var TestAppBehavior: String?
    var TestAppStampsMain: Bool?
}

let manifest = try? PropertyListDecoder().decode(
    Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: "Info.plist")))
let behavior = manifest?.TestAppBehavior ?? "idle"
/// What the `hog-task` behaviours hold, until a memory warning frees it (`hog-task-frees`).
nonisolated(unsafe) var heldForWarning: (pointer: UnsafeMutableRawPointer, megabytes: Int)?
/// The `hog-grow` behaviour's SIGUSR1 source, kept for the life of the process.
nonisolated(unsafe) var growSource: (any DispatchSourceSignal)?
let bundleIdentifier = manifest?.CFBundleIdentifier ?? "org.backgrounder.tests.unknown"
say("behavior \(behavior)")
if manifest?.TestAppStampsMain == true { say("main t=\(mainStarted)") }

switch behavior {
case "crash":
    say("crashing")
    exit(3)
case "hog":
    // 64 MiB, touched so it is resident: the largest app for the jetsam tests.
    let hog = UnsafeMutableRawPointer.allocate(byteCount: 64 << 20, alignment: 4096)
    memset(hog, 1, 64 << 20)
    say("holding 64 MiB at \(hog)")
case "hog-grow":
    // The foreground app that needs memory, for the jetsam test under a real limit: it holds
    // 96 MiB (more than `hog`, so only the daemon's bands make the kernel spare it), and on
    // SIGUSR1 takes 64 MiB more, 4 MiB at a time, every page touched, saying what it got.
    let held = UnsafeMutableRawPointer.allocate(byteCount: 96 << 20, alignment: 4096)
    memset(held, 1, 96 << 20)
    say("holding 96 MiB")
    signal(SIGUSR1, SIG_IGN)
    let grow = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: .global())
    grow.setEventHandler {
        for chunk in 1...16 {
            let more = UnsafeMutableRawPointer.allocate(byteCount: 4 << 20, alignment: 4096)
            memset(more, 1, 4 << 20)
            say("grew by \(chunk * 4) MiB t=\(nanosecondsNow())")
        }
        say("holding 160 MiB")
    }
    grow.resume()
    growSource = grow
case "hog-task", "hog-task-frees":
    // Runs in the background on a task that never ends, holding memory: 64 MiB, or 96 MiB
    // that it frees when warned, for the memory-warning test.
    let megabytes = behavior == "hog-task" ? 64 : 96
    let held = UnsafeMutableRawPointer.allocate(byteCount: megabytes << 20, alignment: 4096)
    memset(held, 1, megabytes << 20)
    heldForWarning = (held, megabytes)
    say("holding \(megabytes) MiB")
case "ignore-sigterm":
    signal(SIGTERM, SIG_IGN)
case "hog-child":
    var pid: pid_t = 0
    let executable = CommandLine.arguments[0]
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), nil]
    let environment = ["TESTAPP_HOG_CHILD=1"] + ProcessInfo.processInfo.environment.map { "\($0)=\($1)" }
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    posix_spawn(&pid, executable, nil, nil, argv, envp)
    say("hog child \(pid)")
case "spin":
    // Busy all the time, in a thread of its own (the main thread still serves the daemon)
    // and in a child: an app that is not frozen shows it as CPU time, so idle cannot pass
    // for suspended.
    var pid: pid_t = 0
    let executable = CommandLine.arguments[0]
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup(executable), nil]
    let environment = ["TESTAPP_SPIN_CHILD=1"] + ProcessInfo.processInfo.environment.map { "\($0)=\($1)" }
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    posix_spawn(&pid, executable, nil, nil, argv, envp)
    say("spinning child \(pid)")
    Thread.detachNewThread { spinForever() }
    say("spinning")
case "fork-children":
    for _ in 0..<2 {
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("600"), nil]
        posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ)
        say("child \(pid)")
    }
default:
    break
}

/// The `locate` behaviour (standard updates, in the background too) and the `significant` one
/// (significant changes): each fix printed with its fix time, so tests see what an app heard.
@MainActor
final class LocatingDelegate: LocationManagerDelegate {
    let manager = LocationManager()
    /// Fixes after which standard updates stop (`locate-briefly`), or `nil` for never.
    let stopAfter: Int?
    private var heard = 0

    /// - Parameters:
    ///   - significantOnly: Significant changes instead of standard updates.
    ///   - stopAfter: Fixes after which standard updates stop.
    init(significantOnly: Bool, stopAfter: Int? = nil) {
        self.stopAfter = stopAfter
        manager.delegate = self
        if significantOnly {
            manager.startMonitoringSignificantLocationChanges()
        } else {
            manager.allowsBackgroundLocationUpdates = true
            manager.startUpdatingLocation()
        }
        say("updating location (authorization \(manager.authorizationStatus.rawValue))")
    }

    func locationManager(_ manager: LocationManager, didUpdateLocations locations: [Location]) {
        for fix in locations {
            // r= is when the app heard it (CLOCK_REALTIME), for the latency benchmark.
            say(
                String(
                    format: "fix %.9f %.9f t=%.3f r=%lld", fix.coordinate.latitude, fix.coordinate.longitude,
                    fix.timestamp, nanosecondsNow()))
        }
        heard += locations.count
        if let stopAfter, heard >= stopAfter, heard - locations.count < stopAfter {
            manager.stopUpdatingLocation()
            say("stopped updating location")
        }
    }

    func locationManager(_ manager: LocationManager, didFailWithError error: LocationError) {
        say("location failed: \(error)")
    }

    func locationManagerDidChangeAuthorization(_ manager: LocationManager) {
        say("authorization \(manager.authorizationStatus.rawValue)")
    }
}

@MainActor
final class TestAppDelegate: ApplicationDelegate {
    var locating: LocatingDelegate?
    var audio: AudioBehavior?
    var transfers: TransferBehavior?

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("launched \(reason.rawValue) t=\(nanosecondsNow())")
        if behavior == "locate" || behavior == "significant" {
            locating = LocatingDelegate(significantOnly: behavior == "significant")
        } else if behavior == "locate-briefly" {
            locating = LocatingDelegate(significantOnly: false, stopAfter: 3)
        }
        if behavior.hasPrefix("tone") || behavior == "silence" || behavior == "record" || behavior == "streams"
            || behavior == "doorbell-flood"
        {
            audio = AudioBehavior(behavior)
        }
        SchedulingBehavior.launched(application, behavior: behavior, identifier: bundleIdentifier)
        NotificationBehavior.launched(application, behavior: behavior)
        if behavior.hasPrefix("transfer-") {
            transfers = TransferBehavior(behavior)
            transfers?.launched(application)
        }
        if behavior == "never-end-task" || behavior.hasPrefix("hog-task") {
            let task = application.beginBackgroundTask(withName: "stubborn") {
                say("expiration handler ignored")
            }
            say("began task \(task.rawValue)")
        }
    }

    func applicationDidEnterBackground(_ application: Application) { say("didEnterBackground") }

    func applicationDidReceiveMemoryWarning(_ application: Application) {
        say("memory warning t=\(nanosecondsNow())")
        guard behavior == "hog-task-frees", let held = heldForWarning else { return }
        held.pointer.deallocate()
        heldForWarning = nil
        say("freed \(held.megabytes) MiB")
    }

    func application(
        _ application: Application,
        performFetchWithCompletionHandler completionHandler: @escaping @MainActor (BackgroundFetchResult) -> Void
    ) {
        SchedulingBehavior.fetch(behavior: behavior, completion: completionHandler)
    }

    func application(
        _ application: Application, didReceiveRemoteNotification userInfo: [String: JSONValue],
        fetchCompletionHandler completionHandler: @escaping @MainActor (BackgroundFetchResult) -> Void
    ) {
        SchedulingBehavior.push(userInfo, completion: completionHandler)
    }

    func application(_ application: Application, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: String) {
        say("device token \(deviceToken)")
    }

    func application(_ application: Application, didFailToRegisterForRemoteNotificationsWithError error: any Error) {
        say("no device token: \(error)")
    }

    func application(_ application: Application, didReceivePushEndpoint endpoint: String) {
        say("push endpoint \(endpoint)")
    }
    func application(
        _ application: Application, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping @MainActor () -> Void
    ) {
        guard let transfers else {
            say("handle events \(identifier) without a transfer behavior")
            return completionHandler()
        }
        transfers.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler)
    }

    func applicationDidBecomeActive(_ application: Application) { say("didBecomeActive") }
    func applicationWillTerminate(_ application: Application) { say("willTerminate") }
    func application(_ application: Application, didReceive event: LaunchReason) { say("received \(event.rawValue)") }
}

MainActor.assumeIsolated {
    SchedulingBehavior.registerTasks(for: behavior, identifier: bundleIdentifier)
    Application.main(delegate: TestAppDelegate())
}
