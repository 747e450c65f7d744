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
        guard behavior == "refresh" else { return }
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier + ".refresh") { task in
            say("refresh task \(task.identifier) remaining=\(remaining())")
            task.expirationHandler = { say("refresh task expired") }
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
        // Submitted when the person opens it; a launch for the task itself does not ask again.
        if behavior == "refresh", application.launchReason == .user {
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

    /// A fetch window: answers as the behaviour says.
    static func fetch(behavior: String, completion: @escaping @MainActor (BackgroundFetchResult) -> Void) {
        say("fetch remaining=\(remaining())")
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
        let data = (try? JSONEncoder.sorted.encode(userInfo)) ?? Data()
        // Said first: the daemon suspends the app as soon as it completes.
        say("push \(String(decoding: data, as: UTF8.self)) remaining=\(remaining())")
        completion(.newData)
    }

    /// The app's background time, as BackgroundKit reports it, in whole seconds (or `unlimited`).
    static func remaining() -> String {
        let seconds = Application.shared.backgroundTimeRemaining
        // BackgroundKit says "unlimited" as iOS does, with the largest finite number.
        return seconds < 1e9 ? String(Int(seconds.rounded())) : "unlimited"
    }
}

extension JSONEncoder {
    /// Keys sorted, so tests can look for a payload's text.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
