import BackgroundKit
import Foundation

// HikeRecorder: records a hike's track with the screen locked, as a hiking app on iOS does.
// Launched by backgrounderd (no arguments) it is the app: HikeDelegate records every fix into
// an append-only log in its data directory and keeps track.gpx beside it. Run by a person with
// a command (export, stats, new) it reads that track; see HikeCommandLine.usage.

if CommandLine.arguments.count > 1 {
    exit(HikeCommand.run(Array(CommandLine.arguments.dropFirst())))
}
MainActor.assumeIsolated {
    Application.main(delegate: HikeDelegate())
}
