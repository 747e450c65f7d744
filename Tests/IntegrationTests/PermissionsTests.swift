import BackgrounderCore
import BackgrounderProtocol
import BackgrounderTestSupport
import Foundation
import Testing

/// `bgctl permissions`: what people granted, as they and scripts read it.
@Suite("bgctl permissions", .timeLimit(.minutes(5)), .tearsDown)
struct PermissionsTests {
    static let alpha = "org.backgrounder.tests.alpha"
    static let beta = "org.backgrounder.tests.beta"
    static let gamma = "org.backgrounder.tests.gamma"

    private func bgctl(_ arguments: [String], socket: String, in directory: TemporaryDirectory) async throws
        -> (status: Int32?, output: String)
    {
        let process = try ChildProcess(
            Locations.product("bgctl"), arguments + ["--socket", socket],
            logPath: directory.appending("bgctl-\(UUID().uuidString.prefix(6)).log"))
        #expect(await process.waitForExit(timeout: .seconds(30)))
        return (process.terminationStatus, process.output)
    }

    private func authorize(_ daemon: DaemonProcess, _ bundle: String, _ grant: AuthorizationGrant) throws {
        let reply = try daemon.client().request(.authorize(Authorize(bundle: BundleID(bundle), grant: grant)))
        guard case .done = reply.body else { throw HarnessError("authorize \(bundle) \(grant): \(reply)") }
    }

    @Test("two apps authorized differently, a third untouched: table, JSON, one ID, an unknown ID, after a restart")
    func listsGrants() async throws {
        let directory = try TemporaryDirectory(prefix: "perm")
        atTeardown { directory.remove() }
        let bundles = directory.appending("bundles")
        try TestAppBundles.make("Alpha", microphoneUsage: true, into: bundles)
        try TestAppBundles.make("Beta", into: bundles)
        try TestAppBundles.make("Gamma", into: bundles)
        var daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        try authorize(daemon, Self.alpha, .location(.always))
        try authorize(daemon, Self.alpha, .microphone(.granted))
        try authorize(daemon, Self.beta, .location(.whenInUse))
        try authorize(daemon, Self.beta, .microphone(.denied))
        try authorize(daemon, Self.alpha, .notifications(.granted))

        let expected: [String: (LocationAuthorization, MicrophoneAuthorization)] = [
            Self.alpha: (.always, .granted), Self.beta: (.whenInUse, .denied),
            Self.gamma: (.notDetermined, .notDetermined),
        ]
        for round in ["first run", "after a restart"] {
            let text = try await bgctl(["permissions"], socket: daemon.socketPath, in: directory)
            #expect(text.status == 0, "\(round): \(text.output)")
            let rows = text.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
            #expect(
                rows.first == ["ID", "NAME", "LOCATION", "MICROPHONE", "NOTIFICATIONS", "MUSIC"],
                "\(round): \(text.output)")
            #expect(
                rows.contains([Self.alpha, "Alpha", "always", "granted", "granted", "not-determined"]),
                "\(round): \(text.output)")
            #expect(
                rows.contains([Self.beta, "Beta", "when-in-use", "denied", "not-determined", "not-determined"]),
                "\(round): \(text.output)")
            #expect(
                rows.contains([
                    Self.gamma, "Gamma", "not-determined", "not-determined", "not-determined", "not-determined",
                ]),
                "\(round): \(text.output)")

            let json = try await bgctl(["permissions", "--json"], socket: daemon.socketPath, in: directory)
            let list = PermissionList(apps: try CLIJSON.decode([PermissionList.Entry].self, "apps", from: json.output))
            #expect(list.apps.map(\.bundle.rawValue) == [Self.alpha, Self.beta, Self.gamma], "\(round)")
            for entry in list.apps {
                #expect(entry.loaded)
                #expect(entry.location == expected[entry.bundle.rawValue]?.0, "\(round): \(entry)")
                #expect(entry.microphone == expected[entry.bundle.rawValue]?.1, "\(round): \(entry)")
                #expect(
                    entry.notifications == (entry.bundle.rawValue == Self.alpha ? .granted : .notDetermined), "\(round)"
                )
                #expect((entry.locationChangedAt != nil) == (entry.bundle.rawValue != Self.gamma), "\(round): \(entry)")
            }

            let one = try await bgctl(["permissions", Self.beta, "--json"], socket: daemon.socketPath, in: directory)
            let only = PermissionList(apps: try CLIJSON.decode([PermissionList.Entry].self, "apps", from: one.output))
            #expect(only.apps.map(\.bundle.rawValue) == [Self.beta], "\(round): \(one.output)")
            #expect(only.apps.first?.location == .whenInUse && only.apps.first?.microphone == .denied)

            let unknown = try await bgctl(
                ["permissions", "org.example.nope"], socket: daemon.socketPath, in: directory)
            #expect(unknown.status == 1)
            #expect(unknown.output.contains("no app 'org.example.nope'"), "\(unknown.output)")
            #expect(daemon.isRunning)

            await daemon.stop()
            if round == "first run" {
                daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
            }
        }

        // An app whose bundle went away keeps its grants on record, shown as not loaded.
        try FileManager.default.removeItem(atPath: bundles + "/Beta.bundle")
        daemon = try await DaemonProcess(directory: directory, bundleDirectories: [bundles])
        let gone = try await bgctl(["permissions", Self.beta], socket: daemon.socketPath, in: directory)
        // Stopped before the directory goes, so it does not write into a removed tree.
        await daemon.stop()
        #expect(gone.status == 0)
        #expect(gone.output.contains("(not loaded)") && gone.output.contains("when-in-use"), "\(gone.output)")
    }
}
