import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// A processing task that requires external power, with a real app and a power-supply tree
/// that flips: it waits on battery, starts when power comes, and is expired when power goes.
@Suite("Processing tasks follow external power")
struct ProcessingConditionsTests {
    @Test("a processing task waits for power, starts when the supply comes online, and is expired when it goes")
    func waitsStartsAndExpires() async throws {
        let directory = try TemporaryDirectory(prefix: "cond-task")
        defer { directory.remove() }
        let tree = try SysfsTree()
        defer { tree.remove() }
        try tree.supply("AC", type: "Mains", online: false)
        try tree.supply("BAT0", type: "Battery", status: "Discharging")
        let bundles = directory.appending("bundles")
        let id = try TestAppBundles.make(
            "Compactor", behavior: "process-on-power", modes: ["processing"],
            permittedTasks: ["org.backgrounder.tests.compactor.compact"], into: bundles)
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles],
            extraArguments: [
                "--power-supply-dir", tree.path(""), "--conditions-interval", "0.2",
                // The device is idle as soon as the screen locks, and due work starts at once
                // (the standard policy waits up to 5 minutes to coalesce wakes).
                "--scheduling", "idleBeforeProcessing=0,coalescingTolerance=0", "--suspend-grace", "1",
            ])
        defer { Task { await daemon.stop() } }
        func appLog() -> String {
            (try? String(contentsOfFile: daemon.stateDirectory + "/logs/\(id).log", encoding: .utf8)) ?? ""
        }
        func state() -> ApplicationState? {
            guard case .apps(let list) = try? daemon.client().request(.ps).body else { return nil }
            return list.apps.first { $0.id == id }?.state
        }

        _ = try daemon.client().request(.open(AppReference(bundle: id)))
        #expect(
            await waitUntil { appLog().contains("submitted org.backgrounder.tests.compactor.compact") }, "\(appLog())")
        _ = try daemon.client().request(.lock)
        // Idle and on battery: the app is suspended and its task waits.
        #expect(await waitUntil { state() == .suspended }, "\(daemon.log)")
        #expect(try daemon.status().conditions?.externalPower == false)
        #expect(!appLog().contains("task started"))

        try tree.write("AC/online", "1")
        #expect(await waitUntil { appLog().contains("task started") }, "\(appLog())\n\(daemon.log)")
        try tree.write("AC/online", "0")
        #expect(await waitUntil { appLog().contains("task expired") }, "\(appLog())\n\(daemon.log)")
    }
}
