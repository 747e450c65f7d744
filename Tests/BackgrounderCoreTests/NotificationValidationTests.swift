import BackgrounderCore
import Foundation
import Testing

/// What the daemon accepts of a notification request, each refusal naming its field.
@Suite("Notifications: validation", .timeLimit(.minutes(5)))
struct NotificationValidationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let content = NotificationContent(title: "Hello", body: "World")

    static func problem(_ request: NotificationRequest) -> NotificationProblem? {
        do {
            _ = try request.validated(now: now, timeZone: .gmt)
            return nil
        } catch {
            return error
        }
    }

    static func request(
        _ identifier: String = "a", content: NotificationContent = content, trigger: NotificationTrigger? = nil
    ) -> NotificationRequest {
        NotificationRequest(identifier: identifier, content: content, trigger: trigger)
    }

    @Test("a good request is accepted with its first fire time")
    func accepted() throws {
        let request = Self.request(trigger: .timeInterval(seconds: 2, repeats: false))
        #expect(try request.validated(now: Self.now, timeZone: .gmt) == Self.now.addingTimeInterval(2))
        #expect(try Self.request().validated(now: Self.now, timeZone: .gmt) == Self.now)
        let region = CircularRegion(identifier: "home", center: Coordinate(latitude: 46, longitude: 14.5), radius: 100)
        #expect(
            try Self.request(trigger: .location(region, repeats: true)).validated(now: Self.now, timeZone: .gmt) == nil)
    }

    static let refusals: [(NotificationRequest, String)] = [
        (request(""), "identifier"),
        (request(String(repeating: "x", count: 257)), "identifier"),
        (request(content: NotificationContent()), "content"),
        (request(content: NotificationContent(title: String(repeating: "t", count: 1025))), "content.title"),
        (request(content: NotificationContent(body: String(repeating: "b", count: 4097))), "content.body"),
        (request(content: NotificationContent(title: "t", sound: "")), "content.sound"),
        (
            request(
                content: NotificationContent(title: "t", userInfo: ["k": .string(String(repeating: "u", count: 4100))])),
            "content.userInfo"
        ),
        (request(trigger: .timeInterval(seconds: 0, repeats: false)), "trigger.seconds"),
        (request(trigger: .timeInterval(seconds: .nan, repeats: false)), "trigger.seconds"),
        (request(trigger: .timeInterval(seconds: 59, repeats: true)), "trigger.seconds"),
        (request(trigger: .calendar(NotificationDateMatch(), repeats: false)), "trigger.dateComponents"),
        (request(trigger: .calendar(NotificationDateMatch(hour: 24), repeats: true)), "trigger.dateComponents.hour"),
        (
            request(trigger: .calendar(NotificationDateMatch(weekday: 0), repeats: true)),
            "trigger.dateComponents.weekday"
        ),
        (
            request(trigger: .calendar(NotificationDateMatch(month: 2, day: 30), repeats: true)),
            "trigger.dateComponents"
        ),
        (
            request(
                trigger: .location(
                    CircularRegion(
                        identifier: "r", center: Coordinate(latitude: 46, longitude: 14), radius: 100,
                        notifyOnEntry: false, notifyOnExit: false), repeats: false)),
            "trigger.region"
        ),
        (
            request(
                trigger: .location(
                    CircularRegion(identifier: "r", center: Coordinate(latitude: 91, longitude: 14), radius: 100),
                    repeats: false)),
            "trigger.region"
        ),
    ]

    @Test("each refusal names the field at fault", arguments: refusals)
    func refused(_ request: NotificationRequest, field: String) {
        let problem = Self.problem(request)
        #expect(problem?.field == field, "\(problem?.description ?? "accepted")")
        #expect(problem?.reason.isEmpty == false)
    }

    @Test("a repeating interval of exactly 60 s is allowed, as on iOS")
    func sixtySeconds() {
        #expect(Self.problem(Self.request(trigger: .timeInterval(seconds: 60, repeats: true))) == nil)
    }

    @Test("requests and triggers survive JSON as the store and the wire carry them")
    func coding() throws {
        let triggers: [NotificationTrigger] = [
            .timeInterval(seconds: 90, repeats: true),
            .calendar(NotificationDateMatch(hour: 9, minute: 30, weekday: 2), repeats: false),
            .location(
                CircularRegion(identifier: "home", center: Coordinate(latitude: 46, longitude: 14.5), radius: 100),
                repeats: true),
        ]
        for trigger in triggers {
            let request = NotificationRequest(
                identifier: "x",
                content: NotificationContent(
                    title: "T", subtitle: "S", body: "B", sound: "default", userInfo: ["n": .number(1)],
                    threadIdentifier: "th"),
                trigger: trigger)
            let data = try JSONEncoder().encode(request)
            #expect(try JSONDecoder().decode(NotificationRequest.self, from: data) == request)
        }
        // Content fields may be left out on the wire.
        let sparse = #"{"identifier":"y","content":{"title":"only"}}"#
        let decoded = try JSONDecoder().decode(NotificationRequest.self, from: Data(sparse.utf8))
        #expect(decoded.content == NotificationContent(title: "only") && decoded.trigger == nil)
    }

    @Test("a person's notifications grant reads like the microphone's")
    func grant() throws {
        #expect(try AuthorizationGrant(service: "notifications", level: "") == .notifications(.granted))
        #expect(try AuthorizationGrant(service: "notifications", level: "denied") == .notifications(.denied))
        #expect(throws: AuthorizationGrantProblem.self) {
            try AuthorizationGrant(service: "notifications", level: "always")
        }
    }
}
