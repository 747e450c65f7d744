/// Byte counts and rates for people, in binary units: `512 B`, `12.3 MiB`, `200 MiB`,
/// `4.1 MiB/s`. Three significant figures at most, so columns stay narrow.
public enum ByteCountText {
    private static let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]

    /// A byte count: whole bytes below 1 KiB, then one decimal below 100 of a unit (none when
    /// it is zero), whole numbers above.
    public static func string(_ bytes: Int64) -> String {
        guard bytes >= 0 else { return "-" + string(bytes == .min ? .max : -bytes) }
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        var text = number(value)
        // 1023.97 KiB rounds to "1024": say "1 MiB" instead.
        if text == "1024", unit < units.count - 1 {
            unit += 1
            text = "1"
        }
        return "\(text) \(units[unit])"
    }

    /// A rate in bytes per second; `-` when unknown or not moving.
    public static func rate(_ bytesPerSecond: Double?) -> String {
        guard let bytesPerSecond, bytesPerSecond.isFinite, bytesPerSecond > 0 else { return "-" }
        return string(Int64(min(bytesPerSecond, Double(Int64.max / 2)).rounded())) + "/s"
    }

    private static func number(_ value: Double) -> String {
        if value >= 99.95 { return String(Int64(value.rounded())) }
        let tenths = Int64((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }
}
