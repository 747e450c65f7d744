import BackgrounderCore
import Foundation
import Testing

/// When notifications fire (``NotificationSchedule``): intervals, calendar components in a
/// time zone, daylight saving time, and dates that never come.
@Suite("Notifications: schedule", .timeLimit(.minutes(5)))
struct NotificationScheduleTests {
    static let ljubljana = TimeZone(identifier: "Europe/Ljubljana")!

    /// An ISO 8601 instant.
    static func at(_ text: String) -> Date {
        try! Date(text, strategy: .iso8601)
    }

    @Test("a time interval fires its seconds after it is added; repeating, it keeps its rhythm and skips missed beats")
    func timeInterval() {
        let now = Self.at("2027-01-10T10:00:00Z")
        let trigger = NotificationTrigger.timeInterval(seconds: 60, repeats: true)
        let first = NotificationSchedule.firstFire(of: trigger, addedAt: now, timeZone: .gmt)
        #expect(first == now.addingTimeInterval(60))
        // Fired on time: the next beat.
        #expect(
            NotificationSchedule.nextFire(of: trigger, due: first!, now: first!, timeZone: .gmt)
                == first!.addingTimeInterval(60))
        // The daemon was stopped for 10.5 minutes: one late delivery, then the rhythm again.
        let late = first!.addingTimeInterval(630)
        #expect(
            NotificationSchedule.nextFire(of: trigger, due: first!, now: late, timeZone: .gmt)
                == first!.addingTimeInterval(660))
        // Not repeating: nothing after it fired.
        #expect(
            NotificationSchedule.nextFire(
                of: .timeInterval(seconds: 60, repeats: false), due: first!, now: first!, timeZone: .gmt) == nil)
        // No trigger: at once.
        #expect(NotificationSchedule.firstFire(of: nil, addedAt: now, timeZone: .gmt) == now)
    }

    @Test("an hour and minute match every day at that wall-clock time in the given time zone")
    func dailyInTimeZone() {
        let match = NotificationDateMatch(hour: 9, minute: 0)
        // 10:00 in Ljubljana (CET, UTC+1) on 10 January: tomorrow at 09:00 CET.
        #expect(
            NotificationSchedule.nextMatch(match, after: Self.at("2027-01-10T09:00:00Z"), timeZone: Self.ljubljana)
                == Self.at("2027-01-11T08:00:00Z"))
        // 08:00 CET: today.
        #expect(
            NotificationSchedule.nextMatch(match, after: Self.at("2027-01-10T07:00:00Z"), timeZone: Self.ljubljana)
                == Self.at("2027-01-10T08:00:00Z"))
        // Exactly at it: strictly after, so tomorrow.
        #expect(
            NotificationSchedule.nextMatch(match, after: Self.at("2027-01-10T08:00:00Z"), timeZone: Self.ljubljana)
                == Self.at("2027-01-11T08:00:00Z"))
    }

    @Test("smaller units than the smallest given are at their minimum, larger ones are free")
    func componentDefaults() {
        let now = Self.at("2027-01-10T10:20:30Z")  // a Sunday
        // A weekday alone: that day at midnight. 2 is Monday.
        #expect(
            NotificationSchedule.nextMatch(NotificationDateMatch(weekday: 2), after: now, timeZone: .gmt)
                == Self.at("2027-01-11T00:00:00Z"))
        // A second alone: every minute at that second.
        #expect(
            NotificationSchedule.nextMatch(NotificationDateMatch(second: 10), after: now, timeZone: .gmt)
                == Self.at("2027-01-10T10:21:10Z"))
        // A minute alone: every hour.
        #expect(
            NotificationSchedule.nextMatch(NotificationDateMatch(minute: 5), after: now, timeZone: .gmt)
                == Self.at("2027-01-10T11:05:00Z"))
        // A month alone: its first day at midnight.
        #expect(
            NotificationSchedule.nextMatch(NotificationDateMatch(month: 3), after: now, timeZone: .gmt)
                == Self.at("2027-03-01T00:00:00Z"))
        // Weekday and hour: next Monday 08:00.
        #expect(
            NotificationSchedule.nextMatch(NotificationDateMatch(hour: 8, weekday: 2), after: now, timeZone: .gmt)
                == Self.at("2027-01-11T08:00:00Z"))
    }

    @Test("a time skipped by daylight saving fires when the clocks jump; a repeated one fires once")
    func daylightSaving() {
        // 28 March 2027: at 02:00 CET the clocks go to 03:00 CEST; 02:30 does not exist.
        let skipped = NotificationDateMatch(month: 3, day: 28, hour: 2, minute: 30)
        #expect(
            NotificationSchedule.nextMatch(skipped, after: Self.at("2027-03-27T12:00:00Z"), timeZone: Self.ljubljana)
                == Self.at("2027-03-28T01:00:00Z"))
        // 31 October 2027: at 03:00 CEST the clocks go back to 02:00 CET; 02:30 happens twice.
        let daily = NotificationDateMatch(hour: 2, minute: 30)
        let first = NotificationSchedule.nextMatch(
            daily, after: Self.at("2027-10-30T12:00:00Z"), timeZone: Self.ljubljana)
        #expect(first == Self.at("2027-10-31T00:30:00Z"))
        // Repeating: not again an hour later, but the next day (CET).
        let trigger = NotificationTrigger.calendar(daily, repeats: true)
        #expect(
            NotificationSchedule.nextFire(of: trigger, due: first!, now: first!, timeZone: Self.ljubljana)
                == Self.at("2027-11-01T01:30:00Z"))
    }

    @Test("dates that never come are nil: February 30, a past year; February 29 waits for a leap year")
    func noSuchDate() {
        let now = Self.at("2027-01-10T10:00:00Z")
        #expect(
            NotificationSchedule.nextMatch(NotificationDateMatch(month: 2, day: 30), after: now, timeZone: .gmt) == nil)
        #expect(
            NotificationSchedule.nextMatch(NotificationDateMatch(month: 4, day: 31), after: now, timeZone: .gmt) == nil)
        #expect(
            NotificationSchedule.nextMatch(NotificationDateMatch(year: 2020, month: 1), after: now, timeZone: .gmt)
                == nil)
        #expect(
            NotificationSchedule.nextMatch(
                NotificationDateMatch(month: 2, day: 29, hour: 12), after: now, timeZone: .gmt)
                == Self.at("2028-02-29T12:00:00Z"))
        // 31 without a month: the next month that has one.
        #expect(
            NotificationSchedule.nextMatch(
                NotificationDateMatch(day: 31, hour: 0), after: Self.at("2027-02-01T00:00:00Z"), timeZone: .gmt)
                == Self.at("2027-03-31T00:00:00Z"))
    }
}
