/// The pieces of `bgctl transfers`' lines: a progress bar, a time left, a short duration
/// and a transfer's state with why it waits.
public enum TransferText {
    /// `[#####-----] 52%`: the bar and the percentage, both rounded down, so 100% means every
    /// byte; `nil` when the total is unknown.
    public static func progressBar(done: Int64, total: Int64, width: Int = 10) -> String? {
        guard total > 0 else { return nil }
        let done = min(max(done, 0), total)
        let width = max(width, 1)
        // In Double: an exabyte times 100 would overflow Int64.
        let fraction = Double(done) / Double(total)
        let filled = done == total ? width : min(Int(fraction * Double(width)), width - 1)
        let percent = done == total ? 100 : min(Int(fraction * 100), 99)
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        return "[\(bar)] \(percent)%"
    }

    /// The time left at the current rate, as `0:47` or `1:02:03`; `-` when unknown (no rate,
    /// no total) and `>99h` when very long.
    public static func eta(remaining: Int64, bytesPerSecond: Double?) -> String {
        guard remaining >= 0, let rate = bytesPerSecond, rate.isFinite, rate > 0 else { return "-" }
        let seconds = (Double(remaining) / rate).rounded(.up)
        guard seconds < 100 * 3600 else { return ">99h" }
        return clock(Int(seconds))
    }

    /// `m:ss` below an hour, `h:mm:ss` above.
    public static func clock(_ seconds: Int) -> String {
        let seconds = max(seconds, 0)
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        let ss = s < 10 ? "0\(s)" : "\(s)"
        guard h > 0 else { return "\(m):\(ss)" }
        return "\(h):\(m < 10 ? "0\(m)" : "\(m)"):\(ss)"
    }

    /// A short duration for a wait: `8s`, `5m 3s`, `2h 5m`, `3d 4h`; rounded up, so a wait is
    /// never shown as over before it is.
    public static func shortDuration(seconds: Double) -> String {
        guard seconds.isFinite else { return "-" }
        let total = Int(min(max(seconds, 0), 1e12).rounded(.up))
        let (d, h, m, s) = (total / 86400, total / 3600 % 24, total / 60 % 60, total % 60)
        if d > 0 { return h > 0 ? "\(d)d \(h)h" : "\(d)d" }
        if h > 0 { return m > 0 ? "\(h)h \(m)m" : "\(h)h" }
        if m > 0 { return s > 0 ? "\(m)m \(s)s" : "\(m)m" }
        return "\(s)s"
    }

    /// The state column: `running`, `completed (HTTP 404)`, `failed`, or a wait and its
    /// reason, such as `waiting (retry in 8s: connection reset)`.
    ///
    /// - Parameters:
    ///   - status: The HTTP status a finished transfer completed with.
    ///   - retryIn: Seconds until a waiting retry goes.
    ///   - beginsIn: Seconds until a waiting `earliestBeginDate`.
    ///   - lastError: The transient failure being retried. Text from a server: escape it
    ///     before printing (``Swift/String/escapedForTerminal``), as `bgctl`'s tables do.
    public static func state(
        _ state: TransferState, waitingFor: TransferWait?, status: Int? = nil, retryIn: Double? = nil,
        beginsIn: Double? = nil, lastError: String? = nil
    ) -> String {
        switch state {
        case .running: return "running"
        case .failed, .cancelled: return state.rawValue
        case .completed: return status.map { "completed (HTTP \($0))" } ?? "completed"
        case .waiting: break
        }
        let reason: String? =
            switch waitingFor {
            case .retry:
                ["retry" + (retryIn.map { " in " + shortDuration(seconds: $0) } ?? ""), lastError]
                    .compactMap(\.self).joined(separator: ": ")
            case .earliestBeginDate: "begins" + (beginsIn.map { " in " + shortDuration(seconds: $0) } ?? " later")
            case .network: "network"
            case .externalPower: "external power"
            case .concurrency: "app's other transfers"
            case nil: nil
            }
        return reason.map { "waiting (\($0))" } ?? "waiting"
    }
}
