public import Foundation

/// A notification an app asks for, as `UNNotificationRequest`: its identifier (adding one with
/// an identifier already pending replaces it), what it says, and when.
public struct NotificationRequest: Sendable, Hashable, Codable {
    /// The app's name for it, unique among its requests.
    public var identifier: String
    /// What it says.
    public var content: NotificationContent
    /// When it is delivered; `nil` for at once.
    public var trigger: NotificationTrigger?

    /// Creates a request.
    public init(identifier: String, content: NotificationContent, trigger: NotificationTrigger? = nil) {
        self.identifier = identifier
        self.content = content
        self.trigger = trigger
    }
}

/// What the daemon accepts of a request, and how many an app may have waiting.
public enum NotificationLimits {
    /// The most requests one app may have pending, as iOS (it keeps the soonest 64).
    public static let maximumPendingPerApp = 64
    /// The most delivered notifications kept per app; older ones are forgotten first.
    public static let maximumDeliveredPerApp = 64
    /// The longest identifier, thread identifier and sound name, in UTF-8 bytes.
    public static let maximumIdentifierBytes = 256
    /// The longest title and subtitle, in UTF-8 bytes.
    public static let maximumTitleBytes = 1024
    /// The longest body, in UTF-8 bytes.
    public static let maximumBodyBytes = 4096
    /// The largest `userInfo`, as compact JSON, in bytes: a push payload's 4 KiB.
    public static let maximumUserInfoBytes = 4096
    /// The shortest interval a repeating time-interval trigger may have, as iOS.
    public static let minimumRepeatInterval: Double = 60
    /// The longest time-interval trigger: ten years.
    public static let maximumInterval: Double = 10 * 366 * 86_400
    /// The largest region radius, in metres (as region monitoring).
    public static let maximumRegionRadius: Double = 100_000
}

/// Why a request was refused: the field at fault and why, for a person (and the app) to read.
public struct NotificationProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field, as the wire spells it (`content.title`, `trigger.seconds`).
    public var field: String
    /// What is wrong with it.
    public var reason: String

    /// Creates a problem.
    public init(_ field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String { "\(field): \(reason)" }
}

extension NotificationRequest {
    /// Checks the request as the daemon accepts it, and when it fires first.
    /// - Parameters:
    ///   - now: When it is added.
    ///   - timeZone: The device's time zone, for calendar triggers.
    /// - Returns: When it is first delivered; `nil` for a location trigger (a region crossing
    ///   delivers it).
    /// - Throws: ``NotificationProblem`` naming the first field at fault.
    public func validated(now: Date, timeZone: TimeZone) throws(NotificationProblem) -> Date? {
        try Self.checkText("identifier", identifier, limit: NotificationLimits.maximumIdentifierBytes, empty: false)
        try Self.checkText("content.title", content.title, limit: NotificationLimits.maximumTitleBytes)
        try Self.checkText("content.subtitle", content.subtitle, limit: NotificationLimits.maximumTitleBytes)
        try Self.checkText("content.body", content.body, limit: NotificationLimits.maximumBodyBytes)
        try Self.checkText(
            "content.threadIdentifier", content.threadIdentifier, limit: NotificationLimits.maximumIdentifierBytes)
        if let sound = content.sound {
            try Self.checkText("content.sound", sound, limit: NotificationLimits.maximumIdentifierBytes, empty: false)
        }
        if content.title.isEmpty && content.body.isEmpty {
            throw NotificationProblem("content", "a notification needs a title or a body")
        }
        let userInfo = JSONValue.object(content.userInfo).text.utf8.count
        if userInfo > NotificationLimits.maximumUserInfoBytes {
            throw NotificationProblem(
                "content.userInfo",
                "must be at most \(NotificationLimits.maximumUserInfoBytes) bytes as JSON, not \(userInfo)")
        }
        return try checkTrigger(now: now, timeZone: timeZone)
    }

    private func checkTrigger(now: Date, timeZone: TimeZone) throws(NotificationProblem) -> Date? {
        switch trigger {
        case nil:
            return now
        case .timeInterval(let seconds, let repeats):
            guard seconds.isFinite, seconds > 0, seconds <= NotificationLimits.maximumInterval else {
                throw NotificationProblem(
                    "trigger.seconds",
                    "must be more than 0 and at most \(Int(NotificationLimits.maximumInterval)), not \(seconds)")
            }
            if repeats && seconds < NotificationLimits.minimumRepeatInterval {
                throw NotificationProblem(
                    "trigger.seconds",
                    "a repeating interval must be at least \(Int(NotificationLimits.minimumRepeatInterval)) s, not \(seconds)"
                )
            }
        case .calendar(let match, _):
            if match.isEmpty {
                throw NotificationProblem("trigger.dateComponents", "at least one component must be set")
            }
            for component in match.checked {
                guard let value = component.value, !component.range.contains(value) else { continue }
                throw NotificationProblem(
                    "trigger.dateComponents.\(component.name)",
                    "must be in \(component.range.lowerBound)...\(component.range.upperBound), not \(value)")
            }
        case .location(let region, _):
            do {
                try region.validate(maximumRadius: NotificationLimits.maximumRegionRadius)
            } catch {
                throw NotificationProblem("trigger.region", error.description)
            }
            if !region.notifyOnEntry && !region.notifyOnExit {
                throw NotificationProblem("trigger.region", "notifyOnEntry or notifyOnExit must be true")
            }
            return nil
        }
        guard let first = NotificationSchedule.firstFire(of: trigger, addedAt: now, timeZone: timeZone) else {
            throw NotificationProblem(
                "trigger.dateComponents", "no date matches these components (such as February 30, or a past year)")
        }
        return first
    }

    private static func checkText(
        _ field: String, _ text: String, limit: Int, empty: Bool = true
    ) throws(NotificationProblem) {
        if !empty && text.isEmpty { throw NotificationProblem(field, "must not be empty") }
        let bytes = text.utf8.count
        if bytes > limit { throw NotificationProblem(field, "must be at most \(limit) UTF-8 bytes, not \(bytes)") }
    }
}
