import Foundation

/// Runs `/usr/bin/playerctl` against a test's buses, as a user controls media players.
///
/// playerctl looks for players on the session bus and then the system bus; without
/// `systemBus` the system bus address names a socket that does not exist, which playerctl
/// skips, so it never finds the host's players.
/// - Parameters:
///   - arguments: playerctl's arguments (`-l`, `status`, `-p NAME play-pause`...).
///   - bus: The session bus.
///   - systemBus: A bus that plays the system bus, if the test has one.
/// - Returns: Its exit status and output.
/// - Throws: ``HarnessError`` when playerctl is not installed.
public func playerctl(_ arguments: String..., bus: SessionBus, systemBus: SessionBus? = nil) async throws -> Tool.Result
{
    let system = systemBus?.address ?? "unix:path=\(bus.socketPath)-no-system-bus"
    return try await BusTool.run(
        "/usr/bin/playerctl", arguments,
        environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": system])
}
