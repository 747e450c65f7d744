package import BackgrounderAppCore
package import BackgrounderCore
package import BackgrounderSystem
import Foundation

/// Gives each app its state's share of the machine (``ResourceBand``): `oom_score_adj` for
/// every process of the app, always; `cpu.weight`, `cpu.max` (the policy's ceiling for a
/// background app on an audio or location assertion) and `io.weight` of its cgroup, and
/// `memory.oom.group` so the OOM killer ends an app whole, with `memory.max` and `pids.max`
/// from ``AppLimits`` bounding it as a whole, where the controllers are delegated
/// (``CgroupControllers``).
@AppCoreActor
package final class ResourceCapability: AppCapability {
    package let controllers: CgroupControllers
    package let limits: AppLimits

    package nonisolated init(controllers: CgroupControllers, limits: AppLimits) {
        self.controllers = controllers
        self.limits = limits
    }

    package func app(_ identifier: BundleID, changed change: LifecycleChange, in apps: any AppCore) {
        switch change {
        case .launched, .checkedIn, .moved, .assertionsChanged: apply(identifier, in: apps)
        case .windowsClosed, .exited, .forceQuit: break
        }
    }

    /// Limits follow the bundle at each launch; nothing is held between them.
    package func identityChanged(_ identifier: BundleID, in apps: any AppCore) {}

    /// Writes the band of the app's state now.
    package func apply(_ identifier: BundleID, in apps: any AppCore) {
        guard let process = apps.process(of: identifier), let manifest = apps.manifest(of: identifier) else { return }
        let band = ResourceBand.forState(
            apps.state(of: identifier), assertions: apps.assertions(of: identifier),
            cpuCeiling: apps.policy.backgroundCPUCeiling(for: manifest))
        let cgroup = process.container.cgroupPath
        let members = cgroup.map { Self.processes(in: $0) } ?? [process.pid]
        for pid in Set(members + [process.pid]) {
            CgroupControllers.write("\(band.oomScoreAdjustment)", to: "/proc/\(pid)/oom_score_adj")
        }
        guard let cgroup else { return }
        if controllers.enabled.contains("cpu") {
            CgroupControllers.write("\(band.cpuWeight)", to: cgroup + "/cpu.weight")
            CgroupControllers.write(band.cpuMax, to: cgroup + "/cpu.max")
        }
        if controllers.enabled.contains("io") {
            CgroupControllers.write("default \(band.ioWeight)", to: cgroup + "/io.weight")
        }
        for (file, value) in Self.limitFiles(limits, enabled: controllers.enabled) {
            CgroupControllers.write(value, to: cgroup + "/" + file)
        }
    }

    /// The files that bound an app's cgroup as a whole, for the controllers it has: the
    /// kernel ends it whole when it passes its memory, and refuses its next fork at its
    /// process count, whatever uid each process runs as.
    package nonisolated static func limitFiles(_ limits: AppLimits, enabled: [String]) -> [(
        file: String, value: String
    )] {
        var files: [(String, String)] = []
        if enabled.contains("memory") {
            files += [("memory.oom.group", "1"), ("memory.max", "\(limits.memory)")]
        }
        if enabled.contains("pids") { files.append(("pids.max", "\(limits.processes)")) }
        return files
    }

    private nonisolated static func processes(in cgroup: String) -> [Int32] {
        let text = (try? KernelFile.read(cgroup + "/cgroup.procs").get()) ?? ""
        return text.split(separator: "\n").compactMap { Int32($0) }
    }
}
