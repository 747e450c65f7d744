import Testing

@testable import BackgrounderAppCore
@testable import BackgrounderApps
@testable import BackgrounderAudio
@testable import BackgrounderDaemon
@testable import BackgrounderLocation
@testable import BackgrounderNotifications
@testable import BackgrounderResources
@testable import BackgrounderScheduling
@testable import BackgrounderSharing
@testable import BackgrounderSystem
@testable import BackgrounderTransfers

/// What bounds an app's cgroup as a whole where controllers are delegated. The machines the
/// suite runs on mount cgroup v2 beside v1 controllers (none delegated), so the kernel side
/// is not exercised here; docs/SANDBOX.md says so.
@Suite("Cgroup limit files")
struct CgroupLimitFilesTests {
    @Test("memory.max and pids.max carry --app-memory-limit and --app-process-limit, only with their controllers")
    func limitFiles() {
        let limits = AppLimits(processes: 40, memory: 64 << 20)
        let all = ResourceCapability.limitFiles(limits, enabled: ["cpu", "memory", "io", "pids"])
        #expect(all.map(\.file) == ["memory.oom.group", "memory.max", "pids.max"])
        #expect(all.map(\.value) == ["1", "\(64 << 20)", "40"])
        #expect(ResourceCapability.limitFiles(limits, enabled: ["pids"]).map(\.file) == ["pids.max"])
        #expect(ResourceCapability.limitFiles(limits, enabled: ["cpu", "io"]).isEmpty)
        #expect(CgroupControllers.wanted.contains("pids"))
    }
}
