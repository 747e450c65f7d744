import BackgroundKit
import Foundation

/// The scheduling behaviours: `fetch-RESULT` (`newData`, `noData`, `failed`, or `never`, which
/// never calls the completion handler), `push` (registers for pushes and prints each payload)
/// and `refresh` (registers and submits an app-refresh task). Each prints what it heard with
/// the background time it had, so tests see the app's side of a window.
@MainActor
enum SchedulingBehavior {
    /// Registers task handlers: before `Application.main`, as iOS requires.
    static func registerTasks(for behavior: String, identifier: String) {
        if behavior.hasPrefix("process") {
            // Works until it is expired: then it says so and completes as failed.
            BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier + ".processing") { task in
                say("processing task \(task.identifier) remaining=\(remaining())")
                task.expirationHandler = {
                    say("processing task expired")
                    task.setTaskCompleted(success: false)
                }
            }
        }
        guard behavior.hasPrefix("refresh") || behavior == "task-api" else { return }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier + ".refresh") { task in
            say("refresh task \(task.identifier) remaining=\(remaining())")
            task.expirationHandler = { say("refresh task expired") }
            // `refresh-overrun` never says it is done, even once told its time is up.
            guard behavior != "refresh-overrun" else { return say("refresh task left running") }
            task.setTaskCompleted(success: true)
        }
    }

    /// What the behaviour does once launched.
    static func launched(_ application: Application, behavior: String, identifier: String) {
        if behavior.hasPrefix("fetch-") {
            application.setMinimumBackgroundFetchInterval(.minimum)
            say("fetch interval set")
        }
        if behavior == "push" {
            application.registerForRemoteNotifications()
        }
        // `processing`, `process-on-power`, `process-on-network`: a processing request, needing
        // nothing but an idle device, external power, or a network.
        if behavior.hasPrefix("process"), application.launchReason == .user {
            let request = BGProcessingTaskRequest(identifier: identifier + ".processing")
            request.requiresExternalPower = behavior == "process-on-power"
            request.requiresNetworkConnectivity = behavior == "process-on-network"
            do {
                try BGTaskScheduler.shared.submit(request)
                say("submitted \(request.identifier)")
            } catch {
                say("submit failed: \(error)")
            }
        }
        if behavior == "task-api" { exerciseTaskAPI(identifier: identifier) }
        // Submitted when the person opens it; a launch for the task itself does not ask again.
        if behavior.hasPrefix("refresh"), application.launchReason == .user {
            let request = BGAppRefreshTaskRequest(identifier: identifier + ".refresh")
            request.earliestBeginDate = Date(timeIntervalSinceNow: 3600)
            do {
                try BGTaskScheduler.shared.submit(request)
                say("submitted \(request.identifier)")
            } catch {
                say("submit failed: \(error)")
            }
        }
    }

    /// The `task-api` behaviour: submits, replaces, lists and cancels its requests through
    /// BackgroundKit, and tries requests the daemon must refuse, printing each outcome.
    static func exerciseTaskAPI(identifier: String) {
        let scheduler = BGTaskScheduler.shared
        func submit(_ request: BGTaskRequest, _ label: String) {
            do {
                try scheduler.submit(request)
                say("\(label): submitted")
            } catch {
                say("\(label): refused: \(error)")
            }
        }
        func refresh(in seconds: Double) -> BGAppRefreshTaskRequest {
            let request = BGAppRefreshTaskRequest(identifier: identifier + ".refresh")
            request.earliestBeginDate = Date(timeIntervalSinceNow: seconds)
            return request
        }
        submit(refresh(in: 3600), "first")
        submit(refresh(in: 7200), "again")
        submit(BGAppRefreshTaskRequest(identifier: identifier + ".bogus"), "unlisted")
        submit(refresh(in: 60 * 86400), "far")
        submit(BGProcessingTaskRequest(identifier: identifier + ".refresh"), "no mode")
        scheduler.getPendingTaskRequests { pending in
            let dates = pending.map {
                "\($0.identifier)@\(Int(($0.earliestBeginDate?.timeIntervalSinceNow ?? 0) / 60))min"
            }
            say("pending after submits: \(dates.joined(separator: ","))")
            scheduler.cancel(taskRequestWithIdentifier: identifier + ".refresh")
            scheduler.getPendingTaskRequests { pending in
                say("pending after cancel: \(pending.count)")
                submit(refresh(in: 3600), "once more")
                scheduler.cancelAllTaskRequests()
                scheduler.getPendingTaskRequests { pending in say("pending after cancel all: \(pending.count)") }
            }
        }
    }

    /// A fetch window: answers as the behaviour says.
    static func fetch(behavior: String, completion: @escaping @MainActor (BackgroundFetchResult) -> Void) {
        // The wall clock too: the backoff test reads the gaps between fetches from it.
        say("fetch remaining=\(remaining()) t=\(nanosecondsNow())")
        let answer = behavior.dropFirst("fetch-".count)
        guard let result = BackgroundFetchResult(rawValue: String(answer)) else {
            say("fetch left open")
            return
        }
        // Said first: the daemon suspends the app as soon as it completes.
        say("fetch completed \(result.rawValue)")
        completion(result)
        // A second call does nothing (iOS ignores it too); the daemon must not see it.
        completion(result)
    }

    /// A silent push: prints its payload and completes with new data.
    static func push(_ userInfo: [String: JSONValue], completion: @escaping @MainActor (BackgroundFetchResult) -> Void)
    {
        // Said first (the daemon suspends the app as soon as it completes), with sorted keys.
        say("push \(JSONValue.object(userInfo).text) remaining=\(remaining())")
        completion(.newData)
    }

    /// The app's background time, as BackgroundKit reports it, in whole seconds (or `unlimited`).
    static func remaining() -> String {
        let seconds = Application.shared.backgroundTimeRemaining
        // BackgroundKit says "unlimited" as iOS does, with the largest finite number.
        return seconds < 1e9 ? String(Int(seconds.rounded())) : "unlimited"
    }
}
