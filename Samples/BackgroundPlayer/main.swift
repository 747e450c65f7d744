import BackgroundKit
import Foundation
import SampleSupport

// BackgroundPlayer: a music player that keeps playing with the screen locked, as a player on
// iOS does with the audio background mode. Launched by backgrounderd (no arguments) it is
// the app: PlayerDelegate plays what remote commands ask for. Run by a person with a command
// (play PATH, pause, resume, next, previous, seek, status) it talks to the running instance
// through the daemon, which wakes or launches it; see PlayerCommandLine.usage.

SampleLaunch.commandOrApp(program: "BackgroundPlayer", identifier: PlayerCommand.bundleIdentifier) {
    PlayerCommand.run($0)
}
MainActor.assumeIsolated {
    Application.main(delegate: PlayerDelegate())
}
