import BackgrounderTestSupport
import Foundation
import Testing

/// A private session bus and PulseAudio, and a daemon serving its media apps' MPRIS players
/// on that bus with the fast test policy: what the media-player tests share. Torn down at the
/// end of the test that starts it.
struct DesktopPlayerFixture {
    let directory: TemporaryDirectory
    let bus: SessionBus
    let pulse: PulseAudioServer
    let daemon: DaemonProcess

    /// The player name BackgroundPlayer's MPRIS player has on the bus.
    static let playerName = "backgrounder.org.backgrounder.samples.backgroundplayer"

    /// Starts it and waits until the daemon has reached PulseAudio.
    /// - Parameters:
    ///   - prefix: The temporary directory's prefix.
    ///   - admitsAnyone: Whether any uid may connect to the bus (an app's own, as in a
    ///     person's daemon).
    ///   - setUp: Assembles the bundles into the directory it is given, knowing the bus.
    static func start(
        prefix: String, admitsAnyone: Bool = false, setUp: (_ bundles: String, _ bus: SessionBus) throws -> Void
    ) async throws -> DesktopPlayerFixture {
        let directory = try TemporaryDirectory(prefix: prefix)
        let bus = try await SessionBus(directory: directory, admitsAnyone: admitsAnyone)
        let pulse = try await PulseAudioServer(directory: directory)
        let bundles = directory.appending("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        try setUp(bundles, bus)
        let daemon = try await DaemonProcess(
            directory: directory, bundleDirectories: [bundles], pulseServer: pulse.server,
            extraArguments: LifecycleTests.fastPolicy, environment: bus.environment)
        atTeardown {
            await daemon.stop()
            await pulse.stop()
            // The bus before its directory: dbus-daemon unlinks its socket as it goes.
            await bus.stop()
            directory.remove()
        }
        #expect(await waitUntil { (try? daemon.status().pulseAudio.state) == .connected }, "\(daemon.log)")
        return DesktopPlayerFixture(directory: directory, bus: bus, pulse: pulse, daemon: daemon)
    }

    /// playerctl on this bus, for BackgroundPlayer's player; its output trimmed.
    func ctl(_ arguments: String...) async throws -> String {
        let result = try await BusTool.run(
            "/usr/bin/playerctl", ["-p", Self.playerName] + arguments,
            environment: [
                "DBUS_SESSION_BUS_ADDRESS": bus.address,
                "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(bus.socketPath)-no-system-bus",
            ])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
