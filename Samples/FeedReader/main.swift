import BackgroundKit
import Foundation
import SampleSupport

// FeedReader: keeps a feed (RSS, Atom or JSON Feed) fresh in the background, as a news app on
// iOS does, with background fetch and an app-refresh task.
//
// Launched by backgrounderd (no arguments) it is the app: FeedDelegate refreshes the feed
// named in feed.url whenever the system gives it a fetch window or runs its refresh task, and
// keeps the items in items.json. Both files are in its data directory,
// STATE/data/org.backgrounder.samples.feedreader (BACKGROUNDER_DATA_DIR). The daemon hands its
// apps a fixed environment, so the address is a file, not a variable. Run by a person with a
// command (subscribe, items) it writes feed.url or prints the items; see FeedCommand.usage.

SampleLaunch.commandOrApp(program: "FeedReader", identifier: FeedFiles.bundleIdentifier) { FeedCommand.run($0) }
MainActor.assumeIsolated {
    let delegate = FeedDelegate()
    // Before Application.main, as on iOS: the handler is what the daemon launches the task into.
    BGTaskScheduler.shared.register(forTaskWithIdentifier: FeedDelegate.refreshTask) { task in
        delegate.handleRefresh(task)
    }
    Application.main(delegate: delegate)
}
