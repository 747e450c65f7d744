import BackgroundKit
import Foundation
import SampleSupport

/// The app: an ``AudioQueuePlayer`` driven by remote commands, with the playback category so
/// it plays on in the background; paused, it is suspended like any other app.
@MainActor
final class PlayerDelegate: ApplicationDelegate {
    private let player = AudioQueuePlayer()
    private var lastReported = ""
    private var nowPlayingTimer: Timer?

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("BackgroundPlayer launched (\(reason.rawValue))")
        do {
            try AudioSession.shared.setCategory(.playback)
        } catch {
            complain("BackgroundPlayer: audio session: \(error)")
        }
        player.onError = { complain("BackgroundPlayer: \($0)") }
        player.onChange = { [weak self] in self?.report() }
        AudioSession.shared.addInterruptionObserver { interruption in
            let cause = interruption.serverLost ? "the sound server went away" : "another app's audio"
            say(
                interruption.began
                    ? "interrupted: \(cause)" : "interruption ended (\(cause)), resume: \(interruption.shouldResume)")
        }
        RemoteCommandCenter.shared.setHandler { [weak self] command, argument in
            self?.handle(command, argument)
        }
        // Elapsed time moves on while playing; the daemon keeps the last value for `status`.
        nowPlayingTimer = Timer.scheduledTimer(withTimeInterval: 5, repeats: true) { _ in
            MainActor.assumeIsolated { [weak self] in
                guard let self, player.isPlaying else { return }
                NowPlayingInfoCenter.shared.nowPlayingInfo = player.nowPlaying
            }
        }
    }

    func applicationDidEnterBackground(_ application: Application) {
        say(player.isPlaying ? "in the background, still playing" : "in the background, paused")
    }

    private func handle(_ command: RemoteCommand, _ argument: String?) {
        say("command: \(command.rawValue)\(argument.map { " \($0)" } ?? "")")
        switch command {
        case .play:
            guard let argument else {
                player.play()
                return
            }
            do {
                let items = try Playlist.resolve(argument, readableExtensions: AudioFile.readableExtensions)
                player.play(items)
            } catch {
                complain("BackgroundPlayer: \(error)")
            }
        case .pause: player.pause()
        case .togglePlayPause: player.isPlaying ? player.pause() : player.play()
        case .nextTrack: player.next()
        case .previousTrack: player.previous()
        case .changePlaybackPosition:
            guard let seconds = argument.flatMap(Double.init), seconds.isFinite else {
                complain("BackgroundPlayer: seek needs seconds, got \(argument ?? "nothing")")
                return
            }
            player.seek(to: seconds)
        }
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
