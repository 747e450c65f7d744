package import BackgrounderAppCore
import BackgrounderCore
package import BackgrounderProtocol

/// `bgctl status`: what the kernel is told of apps' shares, and the bounds on each app.
extension ResourceCapability {
    package func status(in apps: any AppCore) -> CapabilityStatus {
        let summary =
            "\(controllers.summary); oom_score_adj by state; each app at most "
            + "\(ByteCountText.string(Int64(limits.memory))) of memory and \(limits.processes) processes"
        return CapabilityStatus(
            name: "resources", summary: summary,
            counts: ["controllers": controllers.enabled.count, "memoryLimit": limits.memory])
    }
}
