package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: what the kernel is told of apps' shares, and the bounds it enforces on each
/// app: always per process (RLIMIT_DATA), and on the app's cgroup as a whole only where the
/// controllers are delegated (``limitFiles(_:enabled:)``).
extension ResourceCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let memory = ByteCountText.string(Int64(limits.memory))
        let files = Self.limitFiles(limits, enabled: controllers.enabled)
        let bounds = files.filter { $0.file.hasSuffix(".max") }.map { "\($0.file) \($0.value)" }
        let summary =
            "\(controllers.summary); oom_score_adj by state; each process at most \(memory) of data; "
            + (bounds.isEmpty ? "no cgroup limits" : "each app's cgroup: " + bounds.joined(separator: ", "))
        return CapabilityStatus(
            name: "resources", summary: summary,
            counts: ["controllers": controllers.enabled.count, "cgroupLimits": bounds.count])
    }
}
