import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// Processing tasks with real apps and real conditions: a power-supply tree that flips, and a
/// network namespace whose default route comes and goes. Each task waits while its condition
/// fails, starts when it holds, and is expired when it breaks.
@Suite("Processing tasks follow device conditions", .timeLimit(.minutes(5)), .tearsDown)
struct ProcessingConditionsTests {
    static let task = "org.backgrounder.tests.compactor.processing"

    /// A daemon with the Compactor test app, whose processing task needs power or network.
    struct Compactor {
        let directory: TemporaryDirectory
        let daemon: DaemonProcess
        let id: String

        init(behavior: String, powerSupplies: String, launcher: [String] = []) async throws {
            directory = try TemporaryDirectory(prefix: "cond-task")
            let bundles = directory.appending("bundles")
            id = try TestAppBundles.make(
                "Compactor", behavior: behavior, modes: ["processing"],
                taskIdentifiers: [ProcessingConditionsTests.task],
                into: bundles)
            daemon = try await DaemonProcess(
                directory: directory, bundleDirectories: [bundles],
                extraArguments: [
                    "--power-supply-dir", powerSupplies,
                    // The device is idle as soon as the screen locks, and due work starts at
                    // once (the standard policy waits up to 5 minutes to coalesce wakes).
                    "--scheduling", "idleBeforeProcessing=0,coalescingTolerance=0", "--suspend-grace", "1",
                ],
                launcher: launcher)
        }

        var appLog: String {
            AppLogFile.text(atPath: daemon.stateDirectory + "/logs/\(id).log") ?? ""
        }

        var state: ApplicationState? {
            guard case .apps(let list) = try? daemon.client().request(.ps).body else { return nil }
            return list.apps.first { $0.id.rawValue == id }?.state
        }

        /// Opens the app, which submits its task, and locks the screen: the device is idle and
        /// the app is suspended, its task waiting for the condition.
        func submitAndLock() async throws {
            _ = try daemon.client().request(.open(OpenApp(bundle: BundleID(id))))
            #expect(await waitUntil { appLog.contains("submitted \(ProcessingConditionsTests.task)") }, "\(appLog)")
            _ = try daemon.client().request(.lock)
            // Had the task started, its window would keep the app from being suspended.
            #expect(await waitUntil { state == .suspended }, "\(daemon.log)")
            #expect(!appLog.contains("processing task \(ProcessingConditionsTests.task)"))
        }

        func tearDown() async {
            await daemon.stop()
            directory.remove()
        }
    }

    @Test("a task that requires external power waits on battery, starts on mains, and is expired on battery")
    func power() async throws {
        let tree = try SysfsTree()
        atTeardown { tree.remove() }
        try tree.supply("AC", type: "Mains", online: false)
        try tree.supply("BAT0", type: "Battery", status: "Discharging")
        let compactor = try await Compactor(behavior: "process-on-power", powerSupplies: tree.path(""))
        atTeardown { await compactor.tearDown() }

        try await compactor.submitAndLock()
        #expect(try compactor.daemon.status().conditions?.externalPower == false)
        try tree.write("AC/online", "1")
        #expect(
            await waitUntil { compactor.appLog.contains("processing task \(ProcessingConditionsTests.task)") },
            "\(compactor.daemon.log)")
        try tree.write("AC/online", "0")
        #expect(await waitUntil { compactor.appLog.contains("processing task expired") }, "\(compactor.daemon.log)")
    }

    @Test(
        "a task that requires network waits without a default route, starts with one, and is expired when it goes",
        .enabled(if: NetworkNamespace.isAvailable, "needs root and iproute2's ip netns (CI runs as root)"))
    func network() async throws {
        let namespace = try NetworkNamespace()
        atTeardown { namespace.remove() }
        let compactor = try await Compactor(
            behavior: "process-on-network", powerSupplies: "/nonexistent", launcher: namespace.launcher)
        atTeardown { await compactor.tearDown() }

        try await compactor.submitAndLock()
        #expect(try compactor.daemon.status().conditions?.network == false)
        try namespace.addDefaultRoute()
        #expect(
            await waitUntil { compactor.appLog.contains("processing task \(ProcessingConditionsTests.task)") },
            "\(compactor.daemon.log)")
        try namespace.removeDefaultRoute()
        #expect(await waitUntil { compactor.appLog.contains("processing task expired") }, "\(compactor.daemon.log)")
        // Stopped before the namespace goes, so no interface outlives the test.
        await compactor.daemon.stop()
    }
}
