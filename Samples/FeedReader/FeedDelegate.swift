import BackgroundKit
import Foundation
import SampleSupport

/// The app under the daemon: keeps the feed fresh without running in between.
///
/// Two ways in, as on iOS: background fetch (the system picks the moments, no sooner than the
/// minimum interval) and an app-refresh task the app submits itself, due in 15 minutes, which
/// it submits again each time one runs. Either way it refreshes, says `.newData` or
/// `.noData` so the system learns how often this feed changes, and is suspended again.
@MainActor
final class FeedDelegate: ApplicationDelegate {
    /// The app-refresh task's identifier (listed in `BGTaskSchedulerPermittedIdentifiers`).
    static let refreshTask = "org.backgrounder.samples.feedreader.refresh"
    /// How long after one refresh task the next may run.
    static let refreshInterval: TimeInterval = 15 * 60

    private let refresher = FeedRefresher(files: FeedFiles.forApp())

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("launched (\(reason.rawValue))")
        application.setMinimumBackgroundFetchInterval(.minimum)
        scheduleRefresh()
        // Opened by a person, it shows fresh items; launched for an event, the event's
        // callback refreshes.
        if reason == .user { refreshInForeground() }
    }

    func applicationWillEnterForeground(_ application: Application) {
        refreshInForeground()
    }

    func application(
        _ application: Application,
        performFetchWithCompletionHandler completionHandler: @escaping @MainActor (BackgroundFetchResult) -> Void
    ) {
        Task {
            completionHandler(await refresher.refresh("background fetch"))
        }
    }

    /// The refresh task's launch handler: schedules the next one first (so a refresh that
    /// fails still leaves one pending), then refreshes.
    func handleRefresh(_ task: BGTask) {
        scheduleRefresh()
        task.expirationHandler = { [refresher] in refresher.cancel() }
        Task {
            let result = await refresher.refresh("refresh task")
            task.setTaskCompleted(success: result != .failed)
        }
    }

    private func refreshInForeground() {
        Task { _ = await refresher.refresh("opened") }
    }

    /// Submits the next app-refresh task, replacing a pending one.
    private func scheduleRefresh() {
        let request = BGAppRefreshTaskRequest(identifier: Self.refreshTask)
        request.earliestBeginDate = Date(timeIntervalSinceNow: Self.refreshInterval)
        do {
            try BGTaskScheduler.shared.submit(request)
            say("scheduled \(request) in \(Int(Self.refreshInterval / 60)) min")
        } catch {
            say("cannot schedule \(request): \(error)")
        }
    }
}
