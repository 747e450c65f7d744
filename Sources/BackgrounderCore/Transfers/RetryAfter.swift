public import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date, as the delay
/// from now. Anything else is ignored (`nil`), so a garbled header falls back on the backoff.
public enum RetryAfter {
    /// The delay a `Retry-After` value asks for; a date in the past is zero.
    public static func delay(_ value: String, now: Date) -> Duration? {
        let value = value.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits beyond Int64 still mean "a very long time"; the backoff's cap bounds it.
            return .seconds(Int64(value) ?? Int64.max / 4_000)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return .milliseconds(max(Int64((date.timeIntervalSince(now) * 1_000).rounded(.up)), 0))
    }
}

/// HTTP-date (RFC 9110 §5.6.7): recipients accept all three forms, and they are fixed enough
/// to read by hand, which also avoids `DateFormatter`'s locale and two-digit-year guesses.
public enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The moment an HTTP-date names: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the
    /// obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) or asctime
    /// (`Sun Nov  6 08:49:37 1994`); `nil` for anything else or an impossible date.
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if words.count == 6, words[0].hasSuffix(","), days.contains(String(words[0].dropLast())), words[5] == "GMT" {
            // IMF-fixdate.
            guard words[1].count == 2, words[3].count == 4, let day = number(words[1]), let year = number(words[3]),
                let month = months.firstIndex(of: words[2])
            else { return nil }
            return date(year: year, month: month + 1, day: day, time: words[4])
        }
        if words.count == 4, words[0].hasSuffix(","), longDays.contains(String(words[0].dropLast())),
            words[3] == "GMT"
        {
            // RFC 850: a two-digit year more than 50 years ahead is in the past century.
            let parts = words[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, parts[0].count == 2, parts[2].count == 2, let day = number(parts[0]),
                let shortYear = number(parts[2]), let month = months.firstIndex(of: parts[1])
            else { return nil }
            let thisYear = Calendar.gmt.component(.year, from: now)
            var year = thisYear - thisYear % 100 + shortYear
            if year > thisYear + 50 { year -= 100 }
            return date(year: year, month: month + 1, day: day, time: words[2])
        }
        if words.count == 5, days.contains(words[0]), let month = months.firstIndex(of: words[1]) {
            // asctime: the day is padded with a space, not a zero.
            guard (1...2).contains(words[2].count), words[4].count == 4, let day = number(words[2]),
                let year = number(words[4])
            else { return nil }
            return date(year: year, month: month + 1, day: day, time: words[3])
        }
        return nil
    }

    /// Digits only: `Int` alone would take `+6` or `-1`.
    private static func number(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text)
    }

    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let parts = time.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = number(parts[0]), let minute = number(parts[1]), let second = number(parts[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = Calendar.gmt.date(from: components),
            Calendar.gmt.component(.day, from: date) == day
        else { return nil }  // 31 Feb rolls over into March: refused, not moved
        return date
    }
}

extension Calendar {
    /// The Gregorian calendar in UTC, which HTTP dates are written in.
    fileprivate static var gmt: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        return calendar
    }
}
