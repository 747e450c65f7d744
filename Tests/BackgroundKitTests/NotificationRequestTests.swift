import BackgrounderCore
import BackgrounderProtocol
import Foundation
import Testing

@testable import BackgroundKit

/// BackgroundKit's `UN*` types say to the daemon what an iOS app's would mean.
@Suite("UNNotificationRequest on the wire", .timeLimit(.minutes(5)))
struct NotificationRequestTests {
    @Test("content is copied into the request, as on iOS: changing it afterwards changes nothing")
    func contentIsCopied() {
        let content = UNMutableNotificationContent()
        content.title = "Tea"
        content.body = "Ready"
        content.sound = .default
        content.userInfo = ["cup": .number(2)]
        content.threadIdentifier = "kitchen"
        let request = UNNotificationRequest(identifier: "tea", content: content, trigger: nil)
        content.title = "Coffee"
        #expect(
            request.wire
                == NotificationRequest(
                    identifier: "tea",
                    content: NotificationContent(
                        title: "Tea", body: "Ready", sound: "default", userInfo: ["cup": .number(2)],
                        threadIdentifier: "kitchen")))
        #expect(request.content.title == "Tea")
    }

    @Test("each trigger class becomes its trigger, and comes back as the same class")
    func triggers() {
        var components = DateComponents()
        components.hour = 9
        components.minute = 30
        components.weekday = 2
        components.nanosecond = 5  // not a component a calendar trigger reads
        let calendar = UNCalendarNotificationTrigger(dateMatching: components, repeats: true)
        #expect(calendar.storage == .calendar(NotificationDateMatch(hour: 9, minute: 30, weekday: 2), repeats: true))
        #expect(calendar.dateComponents.hour == 9 && calendar.dateComponents.weekday == 2)
        let interval = UNTimeIntervalNotificationTrigger(timeInterval: 90, repeats: false)
        #expect(interval.storage == .timeInterval(seconds: 90, repeats: false))
        let region = CircularRegion(identifier: "home", center: Coordinate(latitude: 46, longitude: 14.5), radius: 100)
        let location = UNLocationNotificationTrigger(region: region, repeats: true)
        #expect(location.repeats && location.region == region)

        let back = UNNotificationRequest(
            NotificationRequest(identifier: "x", content: NotificationContent(title: "t"), trigger: calendar.storage))
        #expect((back.trigger as? UNCalendarNotificationTrigger)?.dateComponents.minute == 30)
        #expect(
            UNNotificationRequest(
                NotificationRequest(
                    identifier: "y", content: NotificationContent(title: "t"), trigger: location.storage)
            ).trigger is UNLocationNotificationTrigger)
    }

    @Test("options are named as the protocol names them")
    func optionNames() {
        #expect(UNAuthorizationOptions([.alert, .sound, .badge]).names == ["alert", "sound", "badge"])
        #expect(UNNotificationPresentationOptions([.banner, .list]).names == ["banner", "list"])
        #expect(UNNotificationPresentationOptions([]).names.isEmpty)
        #expect(!NotificationPresentation(request: "x", options: ["badge"]).shows)
        #expect(NotificationPresentation(request: "x", options: ["list"]).shows)
        #expect(UNNotificationDefaultActionIdentifier == "com.apple.UNNotificationDefaultActionIdentifier")
    }
}
