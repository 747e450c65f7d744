import BackgrounderCore
import Foundation

/// Gives each app its state's share of the machine (``ResourceBand``): `oom_score_adj` for
/// every process of the app, always; `cpu.weight`, `cpu.max` (the policy's ceiling for a
/// background app on an audio or location assertion) and `io.weight` of its cgroup, and
/// `memory.oom.group` so the OOM killer ends an app whole, where the controllers are
/// delegated (``CgroupControllers``).
final class ResourceCapability: AppCapability {
    let controllers: CgroupControllers

    init(controllers: CgroupControllers) {
        self.controllers = controllers
    }

    func app(_ identifier: String, changed change: LifecycleChange, in apps: isolated AppManager) {
        switch change {
        case .launched, .checkedIn, .moved, .assertionsChanged: apply(identifier, in: apps)
        case .windowsClosed, .exited, .forceQuit: break
        }
    }

    /// Writes the band of the app's state now.
    func apply(_ identifier: String, in apps: isolated AppManager) {
        guard let app = apps.apps[identifier], let process = app.process else { return }
        let band = ResourceBand.forState(
            app.lifecycle.state, assertions: app.lifecycle.assertions,
            cpuCeiling: apps.policy.backgroundCPUCeiling(for: app.bundle.manifest))
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
        if controllers.enabled.contains("memory") { CgroupControllers.write("1", to: cgroup + "/memory.oom.group") }
    }

    private static func processes(in cgroup: String) -> [Int32] {
        let text = (try? String(contentsOfFile: cgroup + "/cgroup.procs", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { Int32($0) }
    }
}
