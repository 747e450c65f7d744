public import Foundation

/// When a notification fires: pure functions of the trigger, the time and the time zone.
///
/// Calendar triggers follow Foundation's reading of `DateComponents`: the components present
/// must match, those larger than the smallest one present are free, and those smaller are
/// their minimum (`hour: 9` is 09:00:00 every day; `second: 10` is every minute at :10).
/// Daylight saving time: a wall-clock time that does not exist that day (the hour skipped
/// in spring) fires when the clocks jump, at the first moment that exists after it; one
/// that happens twice (the hour repeated in autumn) fires the first time only.
public enum NotificationSchedule {
    /// How far ahead a calendar trigger is searched: 28 years, after which the Gregorian
    /// calendar's weekdays and leap days repeat, so a match not found by then never comes.
    static let searchYears = 28

    /// When a request added at `now` is first delivered.
    /// - Returns: `now` without a trigger; `nil` for a location trigger, or for calendar
    ///   components no date matches.
    public static func firstFire(of trigger: NotificationTrigger?, addedAt now: Date, timeZone: TimeZone) -> Date? {
        switch trigger {
        case nil: now
        case .timeInterval(let seconds, _): now.addingTimeInterval(seconds)
        case .calendar(let match, _): nextMatch(match, after: now, timeZone: timeZone)
        case .location: nil
        }
    }

    /// When a repeating request fires next, after it was due at `due` and it is `now`; `nil`
    /// when it does not repeat (or is not timed).
    ///
    /// A time interval keeps its rhythm from `due`, skipping the beats that passed while
    /// nothing could fire them (the daemon was stopped), so one late wake is one delivery.
    public static func nextFire(
        of trigger: NotificationTrigger?, due: Date, now: Date, timeZone: TimeZone
    ) -> Date? {
        guard let trigger, trigger.repeats else { return nil }
        switch trigger {
        case .timeInterval(let seconds, _):
            let behind = max(0, now.timeIntervalSince(due))
            let beats = (behind / seconds).rounded(.down) + 1
            return due.addingTimeInterval(beats * seconds)
        case .calendar(let match, _):
            return nextMatch(match, after: max(now, due), timeZone: timeZone)
        case .location:
            return nil
        }
    }

    /// When a pending request fires, judged at `now`: its stored `nextFire`, unless the wall
    /// clock was set back so far that waiting for it would postpone the request by more than
    /// its own rhythm (a request is stored at most one interval, or the first match, ahead;
    /// only a clock set back puts it further).
    ///
    /// - A time interval is never further than one interval from `now`, so a 60 s reminder
    ///   does not wait as long as the clock went back.
    /// - A calendar trigger fires at the first match after `now` when at least two matches
    ///   come before the stored one: a step back by more than one period. A shorter step
    ///   keeps the stored match, so no occurrence that fired is delivered again.
    /// - Returns: The moment to fire; it is to be stored, since a bound relative to `now`
    ///   would otherwise move with it.
    public static func boundedFire(
        _ nextFire: Date, of trigger: NotificationTrigger?, now: Date, timeZone: TimeZone
    ) -> Date {
        switch trigger {
        case .timeInterval(let seconds, _):
            return min(nextFire, now.addingTimeInterval(seconds))
        case .calendar(let match, _):
            guard let candidate = nextMatch(match, after: now, timeZone: timeZone), candidate < nextFire,
                let following = nextMatch(match, after: candidate, timeZone: timeZone), following < nextFire
            else { return nextFire }
            return candidate
        case .location, nil:
            return nextFire
        }
    }

    /// The first moment strictly after `date` matching the components in `timeZone`, or `nil`.
    public static func nextMatch(_ match: NotificationDateMatch, after date: Date, timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let today = calendar.dateComponents([.year, .month, .day], from: date)
        guard let thisYear = today.year, let thisMonth = today.month, let thisDay = today.day else { return nil }
        let pattern = Pattern(match)
        let years = match.year.map { [$0] } ?? Array(thisYear...(thisYear + searchYears))
        for year in years where year >= thisYear {
            for month in pattern.months where (year, month) >= (thisYear, thisMonth) {
                for day in pattern.days(year: year, month: month)
                where (year, month, day) >= (thisYear, thisMonth, thisDay) {
                    // The first time of day after `date`; on later days, the first time of day.
                    for time in pattern.times {
                        let instant = instant(
                            local: Civil.days(year: year, month: month, day: day) * 86_400 + time, in: timeZone)
                        if instant > date { return instant }
                    }
                }
            }
        }
        return nil
    }

    /// The instant a wall-clock time (seconds since 1970-01-01 00:00 local) stands for: the
    /// first of two in a repeated hour, the end of the jump for a skipped one.
    static func instant(local: Int, in timeZone: TimeZone) -> Date {
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local - 86_400)))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(local + 86_400)))
        let candidates = [local - before, local - after].filter { candidate in
            timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(candidate))) == local - candidate
        }
        if let first = candidates.min() { return Date(timeIntervalSince1970: Double(first)) }
        // Skipped: the clocks jumped over it; the jump itself is the first moment after it.
        let start = Date(timeIntervalSince1970: Double(local - max(before, after) - 86_400))
        return timeZone.nextDaylightSavingTimeTransition(after: start)
            ?? Date(timeIntervalSince1970: Double(local - before))
    }

    /// The components as sets of values to try, smallest unit's smaller units at their minimum.
    struct Pattern {
        let match: NotificationDateMatch
        let months: [Int]
        /// Seconds into the day, ascending.
        let times: [Int]

        init(_ match: NotificationDateMatch) {
            self.match = match
            // The smallest unit given; units below it are at their minimum.
            let smallest =
                match.second != nil
                ? 5
                : match.minute != nil
                    ? 4
                    : match.hour != nil
                        ? 3
                        : (match.day ?? match.weekday) != nil
                            ? 2
                            : match.month != nil ? 1 : 0
            func values(_ given: Int?, _ unit: Int, _ range: ClosedRange<Int>) -> [Int] {
                if let given { return [given] }
                return smallest > unit ? Array(range) : [range.lowerBound]
            }
            months = values(match.month, 1, 1...12)
            let hours = values(match.hour, 3, 0...23)
            let minutes = values(match.minute, 4, 0...59)
            let seconds = values(match.second, 5, 0...59)
            times = hours.flatMap { hour in
                minutes.flatMap { minute in seconds.map { hour * 3600 + minute * 60 + $0 } }
            }
        }

        /// The days of a month that match `day` and `weekday` (all when neither is given and a
        /// smaller unit is: `hour: 9` is every day).
        func days(year: Int, month: Int) -> [Int] {
            let count = Civil.daysInMonth(year: year, month: month)
            let everyDay = match.day == nil && match.weekday == nil
            let onlyFirst = everyDay && match.hour == nil && match.minute == nil && match.second == nil
            if onlyFirst { return [1] }
            return (1...count).filter { day in
                (match.day == nil || match.day == day)
                    && (match.weekday == nil || Civil.weekday(year: year, month: month, day: day) == match.weekday)
            }
        }
    }
}

/// Proleptic Gregorian arithmetic, without a time zone.
enum Civil {
    /// Days from 1970-01-01 (Howard Hinnant's days_from_civil).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 1 (Sunday) to 7 (Saturday), as Foundation's Gregorian calendar.
    static func weekday(year: Int, month: Int, day: Int) -> Int {
        // 1970-01-01 was a Thursday (5).
        let days = days(year: year, month: month, day: day)
        return ((days % 7 + 7) % 7 + 4) % 7 + 1
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
