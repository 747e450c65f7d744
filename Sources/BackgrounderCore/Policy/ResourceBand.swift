/// How much of the machine an app gets in each state, as Android's oom_adj bands: the app in
/// front is the last the kernel's OOM killer picks and gets the full CPU and I/O share; a
/// running background app less; a suspended app is the first to go and needs no share at all
/// while frozen.
public struct ResourceBand: Sendable, Hashable {
    /// `/proc/PID/oom_score_adj` (-1000 to 1000; higher is killed first).
    public var oomScoreAdjustment: Int
    /// `cpu.weight` (1 to 10000; 100 is the kernel's default).
    public var cpuWeight: Int
    /// `io.weight` (1 to 10000; 100 is the kernel's default).
    public var ioWeight: Int
    /// The most of one CPU the app may use (`cpu.max`), or `nil` for no ceiling.
    public var cpuCeiling: Double? = nil

    /// `cpu.max` as the kernel takes it: `QUOTA PERIOD` in microseconds, or `max`.
    public var cpuMax: String {
        guard let cpuCeiling else { return "max" }
        let period = 100_000
        return "\(max(1_000, Int((cpuCeiling * Double(period)).rounded()))) \(period)"
    }

    /// The band for an app in `state` that may hold assertions: one running in the background
    /// on an audio or location assertion (unlimited time) gets the policy's CPU ceiling, so a
    /// runaway background app cannot take a core, as iOS ends background apps that use too
    /// much CPU for too long.
    /// - Parameters:
    ///   - assertions: What keeps it running.
    ///   - cpuCeiling: The policy's ceiling (``BackgroundPolicy/backgroundCPUCeiling(for:)``).
    public static func forState(
        _ state: ApplicationState, assertions: Set<BackgroundAssertion>, cpuCeiling: Double?
    ) -> ResourceBand {
        var band = forState(state)
        if state == .background && !assertions.isDisjoint(with: [.audio, .location]) {
            band.cpuCeiling = cpuCeiling
        }
        return band
    }

    /// The band for an app in `state`.
    public static func forState(_ state: ApplicationState) -> ResourceBand {
        switch state {
        case .active, .inactive: ResourceBand(oomScoreAdjustment: 0, cpuWeight: 100, ioWeight: 100)
        case .background: ResourceBand(oomScoreAdjustment: 300, cpuWeight: 25, ioWeight: 25)
        case .suspended, .notRunning: ResourceBand(oomScoreAdjustment: 900, cpuWeight: 1, ioWeight: 1)
        }
    }
}
