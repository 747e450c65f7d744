/// The date components a calendar trigger matches, as the `DateComponents` of
/// `UNCalendarNotificationTrigger`: every component present must match, the absent ones are
/// free. `weekday` is 1 (Sunday) to 7 (Saturday), as Foundation's Gregorian calendar.
public struct NotificationDateMatch: Sendable, Hashable, Codable {
    /// The year.
    public var year: Int?
    /// 1 to 12.
    public var month: Int?
    /// 1 to 31.
    public var day: Int?
    /// 0 to 23.
    public var hour: Int?
    /// 0 to 59.
    public var minute: Int?
    /// 0 to 59.
    public var second: Int?
    /// 1 (Sunday) to 7 (Saturday).
    public var weekday: Int?

    /// Creates a match.
    public init(
        year: Int? = nil, month: Int? = nil, day: Int? = nil, hour: Int? = nil, minute: Int? = nil,
        second: Int? = nil, weekday: Int? = nil
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.weekday = weekday
    }

    /// Every component with its name and allowed range, for validation.
    var checked: [(name: String, value: Int?, range: ClosedRange<Int>)] {
        [
            ("year", year, 1970...9999), ("month", month, 1...12), ("day", day, 1...31), ("hour", hour, 0...23),
            ("minute", minute, 0...59), ("second", second, 0...59), ("weekday", weekday, 1...7),
        ]
    }

    /// Whether no component is set.
    public var isEmpty: Bool { checked.allSatisfy { $0.value == nil } }
}
