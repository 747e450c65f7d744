import BackgrounderCore
import BackgrounderTestSupport
import Foundation
import Testing

@testable import BackgrounderSystem

/// An app's process starts in its cgroup (clone3's `CLONE_INTO_CGROUP`) instead of moving
/// there by a write to `cgroup.procs`, a migration that waits for the kernel's cgroup lock
/// (5 ms of a launch, seen with strace). Real cgroups and a real process.
@Suite("A launch starts the app in its cgroup", .timeLimit(.minutes(2)))
struct SpawnIntoCgroupTests {
    @Test("with only the cgroup's directory (no cgroup.procs to write) the process is born in the app's cgroup")
    func bornInItsCgroup() throws {
        let directory = try TemporaryDirectory(prefix: "intocg")
        defer { directory.remove() }
        let freezer = try CgroupFreezer.discover(stateDirectory: directory.path).get()
        defer { _ = freezer.removeBase() }
        let container = try freezer.prepare(appID: BundleID("org.example.born"))
        defer { freezer.release(container) }
        let cgroup = try #require(container.cgroupPath)
        let cgroupDirectory = open(cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(cgroupDirectory >= 0)
        defer { close(cgroupDirectory) }
        let output = open(directory.appending("out"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(output) }

        // The fallback (fork, then a write to cgroup.procs) has nothing to write to here, so
        // only a start in the cgroup puts the process there.
        let pid = try SandboxedSpawn(
            executable: "/bin/sleep", arguments: ["sleep", "600"], environment: [:], directory: "/",
            output: output, cgroupDirectory: cgroupDirectory
        ).start()
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        let procs = try String(contentsOfFile: cgroup + "/cgroup.procs", encoding: .utf8)
        #expect(procs.split(separator: "\n") == [Substring(String(pid))], "\(procs)")
        let membership = try String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)
        #expect(membership.hasSuffix("/app-org.example.born\n"), "\(membership)")
    }
}
