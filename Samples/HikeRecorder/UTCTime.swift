#if canImport(Glibc)
    import Glibc
#endif

/// Times as ISO 8601 in UTC, the form GPX (`xsd:dateTime`) and people's logs both read.
enum UTCTime {
    /// `2024-06-10T07:13:20Z`, or `2024-06-10T07:13:20.250Z` when the time has a fraction of a
    /// second (to the millisecond, as receivers report it).
    /// - Parameter seconds: Seconds since 1970-01-01 UTC.
    /// - Returns: The time in ISO 8601.
    static func iso8601(_ seconds: Double) -> String {
        // Rounding the whole time to milliseconds first carries 59.9996 s into the next minute.
        let milliseconds = Int64((clamped(seconds) * 1000).rounded())
        let (whole, fraction) = floorDivision(milliseconds, 1000)
        let fields = brokenDown(whole)
        var text = "\(digits(fields.year, 4))-\(digits(fields.month, 2))-\(digits(fields.day, 2))"
        text += "T\(digits(fields.hour, 2)):\(digits(fields.minute, 2)):\(digits(fields.second, 2))"
        if fraction != 0 { text += "." + digits(Int(fraction), 3) }
        return text + "Z"
    }

    /// `20240610T071320Z`, for file names.
    /// - Parameter seconds: Seconds since 1970-01-01 UTC.
    /// - Returns: The time, to the second, in ISO 8601's basic format.
    static func compact(_ seconds: Double) -> String {
        let fields = brokenDown(Int64(clamped(seconds).rounded(.down)))
        return "\(digits(fields.year, 4))\(digits(fields.month, 2))\(digits(fields.day, 2))"
            + "T\(digits(fields.hour, 2))\(digits(fields.minute, 2))\(digits(fields.second, 2))Z"
    }

    private static func brokenDown(
        _ seconds: Int64
    ) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        var time = time_t(seconds)
        var fields = tm()
        gmtime_r(&time, &fields)
        return (
            Int(fields.tm_year) + 1900, Int(fields.tm_mon) + 1, Int(fields.tm_mday),
            Int(fields.tm_hour), Int(fields.tm_min), Int(fields.tm_sec)
        )
    }

    /// Fix times are checked before they are recorded; this only keeps a wild one from trapping.
    private static func clamped(_ seconds: Double) -> Double {
        seconds.isFinite ? min(max(seconds, -1e11), 1e11) : 0
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
