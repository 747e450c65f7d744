import BackgroundKit
import Foundation
import SampleSupport

// HikeRecorder: records a hike's track with the screen locked, as a hiking app on iOS does.
// Launched by backgrounderd (no arguments) it is the app: HikeDelegate records every fix into
// an append-only log in its data directory and keeps track.gpx beside it. Run by a person with
// a command (export, stats, new) it reads that track; see HikeCommandLine.usage.

SampleLaunch.commandOrApp(program: "HikeRecorder", identifier: TrackFiles.bundleIdentifier) { HikeCommand.run($0) }
MainActor.assumeIsolated {
    Application.main(delegate: HikeDelegate())
}
