import BackgrounderAppCore
import BackgrounderCore
import BackgrounderProtocol
import BackgrounderResources
import BackgrounderTestSupport
import Foundation
import Testing

@testable import BackgrounderSystem

/// The resource capability's rules against an embedded core: the app's "cgroup" is a
/// directory of plain files in a temporary directory, so what the capability writes is read
/// back, and no process is started. Its process id names no process: the
/// `oom_score_adj` it is given goes nowhere, and is not checked here.
@Suite("The resource capability on an embedded core")
@AppCoreActor
final class ResourceCapabilityTests {
    /// A plug-in policy that lets a background app have a fifth of a core.
    struct FifthOfACore: BackgroundPolicy {
        let standard = StandardPolicy()
        var name: String { "fifth" }
        func suspendGrace(for app: AppManifest) -> Duration { standard.suspendGrace(for: app) }
        func backgroundTaskBudget(for app: AppManifest) -> Duration { standard.backgroundTaskBudget(for: app) }
        func expirationWarning(for app: AppManifest) -> Duration { standard.expirationWarning(for: app) }
        func crashLoopLimit(for app: AppManifest) -> Int { standard.crashLoopLimit(for: app) }
        func crashLoopWindow(for app: AppManifest) -> Duration { standard.crashLoopWindow(for: app) }
        func maximumMonitoredRegions(for app: AppManifest) -> Int { standard.maximumMonitoredRegions(for: app) }
        func backgroundCPUCeiling(for app: AppManifest) -> Double? { 0.2 }
    }

    let directory: TemporaryDirectory
    /// The app's cgroup, as plain files.
    let cgroup: String
    let core = EmbeddedAppCore()
    let limits = AppLimits(processes: 64, memory: 256 << 20)

    static let player: BundleID = "org.example.player"
    static let files = [
        "cgroup.procs", "cpu.weight", "cpu.max", "io.weight", "memory.oom.group", "memory.max", "pids.max",
    ]

    init() throws {
        directory = try TemporaryDirectory(prefix: "resource-unit")
        cgroup = directory.appending("app.slice")
        try FileManager.default.createDirectory(atPath: cgroup, withIntermediateDirectories: false)
        for file in Self.files {
            try Data().write(to: URL(fileURLWithPath: cgroup + "/" + file))
        }
        core.add(
            AppManifest(bundleIdentifier: Self.player, name: "Player", executable: "Player", backgroundModes: [.audio]),
            state: .background)
        core.processes[Self.player] = Supervisor.Launched(
            pid: Int32.max, container: AppContainer(cgroupPath: cgroup), uid: getuid())
    }

    deinit {
        directory.remove()
    }

    /// The capability with these controllers, told of the core's changes.
    func resources(_ controllers: [String] = CgroupControllers.wanted) -> ResourceCapability {
        let resources = ResourceCapability(
            controllers: CgroupControllers(enabled: controllers, summary: "embedded"), limits: limits)
        core.capabilities = [resources]
        return resources
    }

    /// What was written to the cgroup's files since last asked (each write, as cgroupfs takes
    /// it, replaces the value: the files are emptied after reading).
    func written() throws -> [String: String] {
        var values: [String: String] = [:]
        for file in Self.files {
            let path = cgroup + "/" + file
            let text = try String(contentsOfFile: path, encoding: .utf8)
            if !text.isEmpty { values[file] = text }
            try Data().write(to: URL(fileURLWithPath: path))
        }
        return values
    }

    @Test(
        "each state has its band: in front the full CPU and I/O weight, in the background a quarter, suspended the least"
    )
    func bandsFollowTheState() throws {
        _ = resources()
        core.move(Self.player, to: .active)
        let front = try written()
        #expect(front["cpu.weight"] == "100")
        #expect(front["io.weight"] == "default 100")
        #expect(front["cpu.max"] == "max")

        core.move(Self.player, to: .background)
        let background = try written()
        #expect(background["cpu.weight"] == "25")
        #expect(background["io.weight"] == "default 25")

        core.move(Self.player, to: .suspended)
        let suspended = try written()
        #expect(suspended["cpu.weight"] == "1")
        #expect(suspended["io.weight"] == "default 1")

        // Event windows closing change no band: nothing is written.
        for capability in core.capabilities { capability.app(Self.player, changed: .windowsClosed([1]), in: core) }
        #expect(try written().isEmpty)
    }

    @Test(
        "a background app on an audio or location assertion gets the policy's CPU ceiling, and loses it when it lets go or comes to the front"
    )
    func ceilingOnAssertions() throws {
        core.policy = FifthOfACore()
        _ = resources()
        core.checkIn(Self.player)
        #expect(try written()["cpu.max"] == "max")

        core.setAssertion(.location, held: true, for: Self.player)
        let located = try written()
        #expect(located["cpu.max"] == "20000 100000")
        #expect(located["cpu.weight"] == "25")
        core.setAssertion(.location, held: false, for: Self.player)
        #expect(try written()["cpu.max"] == "max")

        core.setAssertion(.audio, held: true, for: Self.player)
        #expect(try written()["cpu.max"] == "20000 100000")
        core.move(Self.player, to: .active)
        #expect(try written()["cpu.max"] == "max")
    }

    @Test("only the delegated controllers are written; the memory and process limits bound the cgroup as a whole")
    func onlyDelegatedControllers() throws {
        _ = resources(["memory", "pids"])
        core.checkIn(Self.player)
        #expect(try written() == ["memory.oom.group": "1", "memory.max": "268435456", "pids.max": "64"])

        _ = resources([])
        core.move(Self.player, to: .suspended)
        #expect(try written().isEmpty)
    }
}

extension ResourceCapabilityTests {
    @Test("bgctl status says which controllers apps get, and only the cgroup bounds those controllers enforce")
    func status() {
        let status = resources(["cpu", "memory"]).status(in: core)
        #expect(status.name == "resources")
        #expect(status.counts == ["controllers": 2, "cgroupLimits": 1])
        #expect(
            status.summary
                == "embedded; oom_score_adj by state; each process at most 256 MiB of data; each app's cgroup: memory.max 268435456"
        )
        let bare = resources([]).status(in: core)
        #expect(bare.counts == ["controllers": 0, "cgroupLimits": 0])
        #expect(bare.summary.hasSuffix("each process at most 256 MiB of data; no cgroup limits"), "\(bare.summary)")
    }
}
