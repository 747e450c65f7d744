public import BackgrounderCore
public import Foundation

/// When a notification is delivered, as `UNNotificationTrigger`; use one of its subclasses.
public class UNNotificationTrigger {
    let storage: NotificationTrigger

    init(_ storage: NotificationTrigger) {
        self.storage = storage
    }

    /// Whether it fires again after it fired.
    public var repeats: Bool { storage.repeats }

    /// The subclass for a stored trigger.
    static func make(_ trigger: NotificationTrigger?) -> UNNotificationTrigger? {
        switch trigger {
        case nil: nil
        case .timeInterval: UNTimeIntervalNotificationTrigger(trigger!)
        case .calendar: UNCalendarNotificationTrigger(trigger!)
        case .location: UNLocationNotificationTrigger(trigger!)
        }
    }
}

/// Fires after a number of seconds, as `UNTimeIntervalNotificationTrigger`. A repeating one
/// must be at least 60 s apart; the daemon refuses others when the request is added.
public final class UNTimeIntervalNotificationTrigger: UNNotificationTrigger {
    /// Fires `timeInterval` seconds after the request is added, and every as many if it repeats.
    public init(timeInterval: TimeInterval, repeats: Bool) {
        super.init(.timeInterval(seconds: timeInterval, repeats: repeats))
    }

    override init(_ storage: NotificationTrigger) {
        super.init(storage)
    }

    /// The interval.
    public var timeInterval: TimeInterval {
        if case .timeInterval(let seconds, _) = storage { return seconds }
        return 0
    }
}

/// Fires when the clock matches date components, as `UNCalendarNotificationTrigger`: year,
/// month, day, hour, minute, second and weekday are read; other components are ignored.
public final class UNCalendarNotificationTrigger: UNNotificationTrigger {
    /// Fires at the next moment matching `dateComponents` in the device's time zone.
    public init(dateMatching dateComponents: DateComponents, repeats: Bool) {
        super.init(
            .calendar(
                NotificationDateMatch(
                    year: dateComponents.year, month: dateComponents.month, day: dateComponents.day,
                    hour: dateComponents.hour, minute: dateComponents.minute, second: dateComponents.second,
                    weekday: dateComponents.weekday),
                repeats: repeats))
    }

    override init(_ storage: NotificationTrigger) {
        super.init(storage)
    }

    /// The components it matches.
    public var dateComponents: DateComponents {
        guard case .calendar(let match, _) = storage else { return DateComponents() }
        return DateComponents(
            year: match.year, month: match.month, day: match.day, hour: match.hour, minute: match.minute,
            second: match.second, weekday: match.weekday)
    }

    /// When it fires next, from now, in the device's time zone.
    public func nextTriggerDate() -> Date? {
        guard case .calendar(let match, _) = storage else { return nil }
        return NotificationSchedule.nextMatch(match, after: Date(), timeZone: .current)
    }
}

/// Fires when the device enters or leaves a region, as `UNLocationNotificationTrigger`
/// (the region's `notifyOnEntry` and `notifyOnExit` say which).
public final class UNLocationNotificationTrigger: UNNotificationTrigger {
    /// Fires on crossing `region`.
    public init(region: CircularRegion, repeats: Bool) {
        super.init(.location(region, repeats: repeats))
    }

    override init(_ storage: NotificationTrigger) {
        super.init(storage)
    }

    /// The region.
    public var region: CircularRegion? {
        if case .location(let region, _) = storage { return region }
        return nil
    }
}
