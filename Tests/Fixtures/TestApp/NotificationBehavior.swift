import BackgroundKit
import Foundation

/// The notification behaviours: `notify-SECONDS` asks for authorization when a person opens it
/// and adds the request `reminder`, due SECONDS later; `notify-listen` only listens. Both print
/// what `willPresent` and responses bring, and write each response to `response.json` in the
/// data directory, so a test reads what the app got.
@MainActor
final class NotificationBehavior: UNUserNotificationCenterDelegate {
    static var current: NotificationBehavior?

    static func launched(_ application: Application, behavior: String) {
        guard behavior.hasPrefix("notify-") else { return }
        let listener = NotificationBehavior()
        current = listener
        let center = UNUserNotificationCenter.current()
        center.delegate = listener
        guard let seconds = Double(behavior.dropFirst("notify-".count)), application.launchReason == .user else {
            return
        }
        Task {
            do {
                let granted = try await center.requestAuthorization(options: [.alert, .sound])
                say("notifications granted \(granted)")
                let content = UNMutableNotificationContent()
                content.title = "Reminder"
                content.body = "Tea is ready"
                content.sound = .default
                content.userInfo = ["cup": .number(2)]
                let trigger = UNTimeIntervalNotificationTrigger(timeInterval: seconds, repeats: false)
                try await center.add(UNNotificationRequest(identifier: "reminder", content: content, trigger: trigger))
                let pending = await center.pendingNotificationRequests().map(\.identifier)
                say("added reminder; pending \(pending)")
            } catch {
                say("add failed: \(error)")
            }
        }
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, willPresent notification: UNNotification) async
        -> UNNotificationPresentationOptions
    {
        say("willPresent \(notification.request.identifier)")
        return [.banner, .sound]
    }

    func userNotificationCenter(_ center: UNUserNotificationCenter, didReceive response: UNNotificationResponse) async {
        let request = response.notification.request
        say("response \(request.identifier) \(response.actionIdentifier)")
        let record: [String: JSONValue] = [
            "identifier": .string(request.identifier),
            "action": .string(response.actionIdentifier),
            "title": .string(request.content.title),
            "userInfo": .object(request.content.userInfo),
        ]
        let directory = ProcessInfo.processInfo.environment["BACKGROUNDER_DATA_DIR"] ?? "."
        try? Data(JSONValue.object(record).text.utf8).write(to: URL(fileURLWithPath: directory + "/response.json"))
    }
}
