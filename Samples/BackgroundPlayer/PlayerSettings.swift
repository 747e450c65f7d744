import BackgroundKit
import Foundation
import SampleSupport

/// What a listener set and expects to find next time the player is launched: its volume, what
/// it repeats and whether it shuffles. Kept in the app's data directory as `settings.json`.
struct PlayerSettings: Codable, Equatable {
    var volume = 1.0
    var repeatMode = RepeatMode.off
    var shuffleMode = ShuffleMode.off

    static let fileName = "settings.json"

    /// The settings saved in `directory`; the defaults when there are none, or when the file
    /// cannot be read (said on standard error with the file and why, and replaced at the next
    /// change).
    static func load(from directory: String) -> PlayerSettings {
        let path = directory + "/" + fileName
        guard FileManager.default.fileExists(atPath: path) else { return PlayerSettings() }
        do {
            var settings = try JSONDecoder().decode(
                PlayerSettings.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            guard settings.volume.isFinite, (0...1).contains(settings.volume) else {
                complain("BackgroundPlayer: \(path): volume: \(settings.volume) is not from 0 to 1; using 1")
                settings.volume = 1
                return settings
            }
            return settings
        } catch {
            complain("BackgroundPlayer: \(path): not the player's settings (\(error)); starting from the defaults")
            return PlayerSettings()
        }
    }

    /// Saves the settings in `directory`, replacing the file whole.
    func save(in directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(self).write(to: URL(fileURLWithPath: directory + "/" + Self.fileName), options: .atomic)
    }
}
