import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// The daemon follows real device conditions: a power-supply tree that flips, and a network
/// namespace that gains and loses its default route; `STATUS` and `bgctl status` follow. It
/// hears of each change as an event (inotify, rtnetlink), not by reading on an interval.
@Suite("Device conditions", .timeLimit(.minutes(5)), .tearsDown)
struct DeviceConditionsTests {
    /// `bgctl status` (text, or JSON) against a daemon.
    func bgctlStatus(_ daemon: DaemonProcess, json: Bool = false, in directory: TemporaryDirectory) async throws
        -> String
    {
        let process = try ChildProcess(
            Locations.product("bgctl"), ["status", "--socket", daemon.socketPath] + (json ? ["--json"] : []),
            logPath: directory.appending("bgctl-\(UUID().uuidString.prefix(6)).log"))
        #expect(await process.waitForExit(timeout: .seconds(30)))
        #expect(process.terminationStatus == 0)
        return process.output
    }

    /// Waits until the daemon's conditions satisfy `condition`, returning the last ones seen.
    func conditions(of daemon: DaemonProcess, until condition: (ConditionsStatus) -> Bool) async -> ConditionsStatus? {
        var last: ConditionsStatus?
        await waitUntil {
            last = try? daemon.status().conditions
            return last.map(condition) ?? false
        }
        return last
    }

    @Test("external power follows the power-supply tree as it flips offline, online and offline")
    func powerFlips() async throws {
        let tree = try SysfsTree()
        atTeardown { tree.remove() }
        try tree.supply("AC", type: "Mains", online: false)
        try tree.supply("BAT0", type: "Battery", status: "Discharging")
        let fixture = try await DaemonFixture(
            prefix: "cond-power",
            extraArguments: ["--power-supply-dir", tree.path("")])
        atTeardown { await fixture.tearDown() }
        let daemon = fixture.daemon

        let battery = await conditions(of: daemon) { !$0.externalPower }
        #expect(battery?.powerSource == "AC (Mains) offline, BAT0 (Battery) Discharging")
        // Followed by events alone: the default 5 s interval is not in use.
        #expect(battery?.events == "rtnetlink, inotify on the power-supply tree")
        #expect(battery?.eventsUnavailable == nil)
        let text = try await bgctlStatus(daemon, in: fixture.directory)
        #expect(text.contains("battery  (AC (Mains) offline, BAT0 (Battery) Discharging)"), "\(text)")

        try tree.write("AC/online", "1")
        let external = await conditions(of: daemon) { $0.externalPower }
        #expect(external?.powerSource == "AC (Mains) online")
        let json = try await bgctlStatus(daemon, json: true, in: fixture.directory)
        let decoded = try CLIJSON.decode(DaemonStatus.self, "status", from: json)
        #expect(decoded.conditions?.externalPower == true)

        try tree.write("AC/online", "0")
        #expect(await conditions(of: daemon) { !$0.externalPower } != nil)
        #expect(daemon.log.contains("external power: yes (AC (Mains) online)"))
        #expect(daemon.log.contains("external power: no (AC (Mains) offline"))
    }

    @Test(
        "network follows a real default route: a daemon in a network namespace without, then with, then without one",
        .enabled(if: NetworkNamespace.isAvailable, "needs root and iproute2's ip netns (CI runs as root)"))
    func networkFollowsTheRoute() async throws {
        let namespace = try NetworkNamespace()
        atTeardown { namespace.remove() }
        let directory = try TemporaryDirectory(prefix: "cond-net")
        atTeardown { directory.remove() }
        // An empty tree: no power supplies, so external power, followed by inotify.
        try FileManager.default.createDirectory(
            atPath: directory.appending("no-power"), withIntermediateDirectories: true)
        let daemon = try await DaemonProcess(
            directory: directory,
            extraArguments: ["--power-supply-dir", directory.appending("no-power")],
            launcher: namespace.launcher)
        atTeardown { await daemon.stop() }

        let offline = await conditions(of: daemon) { !$0.network }
        #expect(offline?.networkSource == "no default route")
        #expect(offline?.externalPower == true)
        #expect(offline?.events?.hasPrefix("rtnetlink") == true)
        #expect(offline?.eventsUnavailable == nil)
        let text = try await bgctlStatus(daemon, in: directory)
        #expect(text.contains("no  (no default route)"), "\(text)")

        try namespace.addDefaultRoute()
        let online = await conditions(of: daemon) { $0.network }
        #expect(online?.networkSource == "default route on \(namespace.interface) (IPv4)")

        try namespace.removeDefaultRoute()
        #expect(await conditions(of: daemon) { !$0.network } != nil)
        // Stopped before the namespace goes, so no interface outlives the test.
        await daemon.stop()
    }
}
