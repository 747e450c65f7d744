import BackgroundKit
import Foundation
import SampleSupport

// Podcasts: downloads a podcast's episodes with a background URLSession, as a podcast app on
// iOS does. A person subscribes from a shell (`Podcasts subscribe URL` writes feed.url in the
// app's data directory, STATE/data/org.backgrounder.samples.podcasts). Opened (`bgctl open`),
// the app fetches the feed, hands each new enclosure to the system as a background download
// and exits. The daemon downloads them meanwhile and, once all are finished, launches the app
// into handleEventsForBackgroundURLSession: it moves each file into Episodes/ and records it
// in episodes.json, which `Podcasts list` prints. See PodcastCommand.usage.

SampleLaunch.commandOrApp(program: "Podcasts", identifier: PodcastFiles.bundleIdentifier) { PodcastCommand.run($0) }
MainActor.assumeIsolated {
    Application.main(delegate: PodcastDelegate())
}
