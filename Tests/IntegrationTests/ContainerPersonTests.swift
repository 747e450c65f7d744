import BackgrounderTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A person in a container: the daemon runs in a pid namespace of its own (as in a Docker
/// container or CI runner), so the session of a person's shell began outside it and
/// `getsid` reports 0. With the signals mechanism (which tells apps by session) that session
/// must read as "outside every app", not as a failure: CI's runner is exactly this.
@Suite("A person in a container", .timeLimit(.minutes(5)), .tearsDown)
struct ContainerPersonTests {
    static let isAvailable = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")

    @Test(
        "bgctl whose session began outside the daemon's pid namespace is a person and opens an app",
        .enabled(if: isAvailable, "needs root for unshare --pid (CI runs as root)"))
    func sessionOutsideNamespace() async throws {
        let directory = try TemporaryDirectory(prefix: "container-person")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        try SampleBundles.assemble("Hello", into: bundles)
        // unshare forks: the daemon is its child, pid 1 of the new namespace, and its session
        // (this test's) has no number there.
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], extraArguments: ["--suspension", "signals"],
            launcher: ["/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "--kill-child"])
        atTeardown { await daemon.stop() }
        let inner = try #require(Self.child(of: daemon.pid))

        /// bgctl entered into the daemon's pid namespace, keeping this test's session.
        func bgctl(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
            let process = try ChildProcess(
                "/usr/bin/nsenter",
                ["--target", String(inner), "--pid", "--", Locations.product("bgctl")] + arguments
                    + ["--socket", daemon.socketPath],
                logPath: directory.appending("bgctl-\(UUID().uuidString.prefix(6)).log"))
            #expect(await process.waitForExit(timeout: .seconds(30)))
            return (process.terminationStatus, process.output)
        }

        let status = try await bgctl(["status"])
        #expect(status.status == 0, "\(status.output)")
        #expect(status.output.contains("signals"))
        let open = try await bgctl(["open", "org.backgrounder.samples.hello"])
        #expect(open.status == 0, "\(open.output)")
        let ps = try await bgctl(["ps", "--wide"])
        #expect(ps.output.contains("org.backgrounder.samples.hello"), "\(ps.output)")
        #expect(!daemon.log.contains("cannot read the process's session"), "\(daemon.log)")
    }

    /// The first child of a process (the daemon under `unshare --fork`; it is up, since its
    /// socket answered).
    static func child(of pid: Int32) -> Int32? {
        (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8))?
            .split(separator: " ").first.flatMap { Int32($0) }
    }
}
