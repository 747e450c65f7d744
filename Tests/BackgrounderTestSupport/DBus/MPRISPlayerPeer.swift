import Foundation

/// A minimal MPRIS2 player on a test's bus (`Tests/Fixtures/dbus/mpris_player.py`): both
/// interfaces at `/org/mpris/MediaPlayer2`, one track, and every call recorded. It checks the
/// ``playerctl(_:bus:systemBus:)`` helper, and is the reference the daemon's own MPRIS
/// player can be compared with (same properties, same answers to playerctl).
public final class MPRISPlayerPeer: Sendable {
    /// The object path every MPRIS player uses.
    public static let path = "/org/mpris/MediaPlayer2"
    /// The track's id (`mpris:trackid`).
    public static let trackID = "/org/backgrounder/track/1"

    /// The name playerctl shows (`org.mpris.MediaPlayer2.` + this).
    public let playerName: String
    /// The running script.
    public let peer: DBusPeerProcess

    /// Starts the player and waits until it owns `org.mpris.MediaPlayer2.<playerName>`.
    /// - Parameters:
    ///   - playerName: The name after `org.mpris.MediaPlayer2.`.
    ///   - bus: The session bus.
    ///   - directory: Where its record file and log go.
    /// - Throws: ``HarnessError`` when it does not come up.
    public init(playerName: String = "backgroundertest", bus: SessionBus, directory: TemporaryDirectory) async throws {
        self.playerName = playerName
        peer = try await DBusPeerProcess(
            script: "mpris_player.py", name: "org.mpris.MediaPlayer2.\(playerName)", bus: bus, directory: directory,
            arguments: ["--name", playerName])
    }

    /// The methods called on it (`Play`, `PlayPause`, `SetPosition`...), oldest first;
    /// property reads left out.
    public func calls() -> [String] {
        peer.records().map(\.event).filter { !["Get", "GetAll"].contains($0) }
    }

    /// Everything it recorded.
    public func records() -> [PeerRecord] { peer.records() }

    /// Stops the player.
    public func stop() async { await peer.stop() }
}
