import BackgroundKit
import Foundation
import SampleSupport

/// The app: an ``AudioQueuePlayer`` driven by remote commands, with the playback category so
/// it plays on in the background; paused, it is suspended like any other app. The listener's
/// volume, repeat and shuffle settings are kept across launches.
@MainActor
final class PlayerDelegate: ApplicationDelegate {
    private let player = AudioQueuePlayer()
    private var lastReported = ""
    private let dataDirectory = Application.dataDirectory(forBundle: PlayerCommand.bundleIdentifier)
    private var settings = PlayerSettings()

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("BackgroundPlayer launched (\(reason.rawValue))")
        do {
            try AudioSession.shared.setCategory(.playback)
        } catch {
            complain("BackgroundPlayer: audio session: \(error)")
        }
        settings = PlayerSettings.load(from: dataDirectory)
        player.setVolume(settings.volume)
        player.setRepeatMode(settings.repeatMode)
        player.setShuffleMode(settings.shuffleMode)
        player.onError = { complain("BackgroundPlayer: \($0)") }
        player.onChange = { [weak self] in self?.report() }
        AudioSession.shared.addInterruptionObserver { interruption in
            let cause =
                interruption.serverLost
                ? "the sound server went away"
                : interruption.serverRequested ? "the sound server asked for quiet" : "another app's audio"
            say(
                interruption.began
                    ? "interrupted: \(cause)" : "interruption ended (\(cause)), resume: \(interruption.shouldResume)")
        }
        // Headphones unplugged: the daemon paused the stream and the player says it is paused.
        AudioSession.shared.addRouteChangeObserver { change in
            say(
                "route changed (\(change.reason.rawValue)): \(change.previousOutput ?? "?") -> \(change.output ?? "?")\(change.paused ? ", paused" : "")"
            )
        }
        // The status goes back to the person who sent the command (`BackgroundPlayer next` on
        // the last track is told there is none), as an MPRemoteCommand target's does.
        RemoteCommandCenter.shared.addTarget(explaining: { [weak self] command, argument in
            self?.handle(command, argument) ?? (.commandFailed, "the player is gone")
        })
        // No timer publishes the position: the daemon moves it on from the last change, so
        // a playing app is woken only by its audio.
    }

    func applicationDidEnterBackground(_ application: Application) {
        say(player.isPlaying ? "in the background, still playing" : "in the background, paused")
    }

    private func handle(_ command: RemoteCommand, _ argument: String?) -> (RemoteCommandHandlerStatus, reason: String?)
    {
        say("command: \(command.rawValue)\(argument.map { " \($0)" } ?? "")")
        // Decided on what the commands so far lead to (`queuedIndex`), not on what plays this
        // instant: a `next` right after `play` must see the new list.
        let hasItem = player.queuedIndex != nil
        switch command {
        case .play:
            guard let argument else {
                guard player.queuedCount > 0 else { return playLibrary() }
                player.play()
                return (.success, nil)
            }
            return play(argument)
        case .pause:
            guard hasItem else { return refuse(.noActionableNowPlayingItem, "nothing to pause") }
            player.pause()
        case .togglePlayPause:
            guard hasItem else { return refuse(.noActionableNowPlayingItem, "nothing to play or pause") }
            player.isPlaying ? player.pause() : player.play()
        case .nextTrack:
            guard let index = player.queuedIndex else { return refuse(.noActionableNowPlayingItem, "nothing plays") }
            guard player.hasNext else {
                return refuse(.noSuchContent, "item \(index + 1) of \(player.queuedCount) is the last")
            }
            player.next()
        case .previousTrack:
            guard hasItem else { return refuse(.noActionableNowPlayingItem, "nothing plays") }
            player.previous()
        case .changePlaybackPosition:
            guard let seconds = argument.flatMap(Double.init), seconds.isFinite, seconds >= 0 else {
                return refuse(.commandFailed, "seek needs seconds, got \(argument ?? "nothing")")
            }
            guard hasItem else { return refuse(.noActionableNowPlayingItem, "nothing to seek in") }
            player.seek(to: seconds)
        case .changeRepeatMode:
            guard let mode = argument.flatMap(RepeatMode.init(rawValue:)) else {
                return refuse(.commandFailed, "repeat takes off, one or all, got \(argument ?? "nothing")")
            }
            player.setRepeatMode(mode)
            settings.repeatMode = mode
        case .changeShuffleMode:
            guard let mode = argument.flatMap(ShuffleMode.init(rawValue:)) else {
                return refuse(.commandFailed, "shuffle takes off or items, got \(argument ?? "nothing")")
            }
            player.setShuffleMode(mode)
            settings.shuffleMode = mode
        case .changeVolume:
            guard let level = argument.flatMap(Double.init), level.isFinite, (0...1).contains(level) else {
                return refuse(.commandFailed, "volume takes a level from 0 to 1, got \(argument ?? "nothing")")
            }
            player.setVolume(level)
            settings.volume = level
        }
        if [.changeRepeatMode, .changeShuffleMode, .changeVolume].contains(command) {
            do {
                try settings.save(in: dataDirectory)
            } catch {
                // Set for now all the same; only the next launch will not remember it.
                complain("BackgroundPlayer: cannot keep the setting in \(dataDirectory): \(error)")
            }
        }
        return (.success, nil)
    }

    /// Plays a file, a folder or a playlist the person named.
    private func play(_ path: String) -> (RemoteCommandHandlerStatus, reason: String?) {
        do {
            let items = try Playlist.resolve(path, readableExtensions: AudioFile.readableExtensions)
            // Every item opened once here (the daemon hands over files a person shared),
            // so one the app may not read is refused now, with why, not skipped later.
            for item in items {
                let descriptor = try SharedFiles.open(item)
                close(descriptor)
            }
            player.play(items)
            return (.success, nil)
        } catch {
            return refuse(.noSuchContent, "\(error)")
        }
    }

    /// Nothing to resume: the person's music library, once they allow it (the first time,
    /// they are asked, and resume again after answering).
    private func playLibrary() -> (RemoteCommandHandlerStatus, reason: String?) {
        let library: MediaLibrary.Authorization
        do {
            library = try MediaLibrary.requestAuthorization()
        } catch {
            return refuse(.commandFailed, "nothing to resume, and the music library cannot be asked for: \(error)")
        }
        switch library.status {
        case .notDetermined:
            return refuse(
                .noActionableNowPlayingItem,
                "nothing to resume; you were asked to allow your music library (bgctl prompts): allow it, then resume again"
            )
        case .denied:
            return refuse(
                .noActionableNowPlayingItem,
                "nothing to resume, and your music library is not allowed (bgctl authorize \(PlayerCommand.bundleIdentifier) media-library)"
            )
        case .granted:
            guard let folder = library.folder else {
                return refuse(
                    .noSuchContent, "your music library is allowed, but \(library.note ?? "there is no music folder")")
            }
            return play(folder)
        }
    }

    /// Logs why a command was not carried out and returns what the person hears.
    private func refuse(_ status: RemoteCommandHandlerStatus, _ why: String) -> (
        RemoteCommandHandlerStatus, reason: String?
    ) {
        complain("BackgroundPlayer: \(status.rawValue): \(why)")
        return (status, why)
    }

    private func report() {
        let line: String
        if let info = player.nowPlaying {
            let place = "\((info.index ?? 0) + 1)/\(info.count ?? 0)"
            line = "\(info.playing ? "playing" : "paused") \(place): \(info.title)"
        } else {
            line = "stopped"
        }
        guard line != lastReported else { return }
        lastReported = line
        say(line)
    }
}
