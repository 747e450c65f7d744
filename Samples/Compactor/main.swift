import BackgroundKit
import Foundation

// Compactor: a journal in SQLite that a processing task compacts while the device is idle and
// on external power, as an iOS app keeps its database tidy with BGProcessingTaskRequest.
//
// Each time a person opens it, it adds entries and prunes old ones, which leaves free pages in
// journal.sqlite (in its data directory, STATE/data/org.backgrounder.samples.compactor), and
// submits a processing task with requiresExternalPower. When the daemon runs the task, it
// gives the free pages back in small steps, stopping cleanly if the task is expired, and
// prints the file's size before and after.

MainActor.assumeIsolated {
    let delegate = CompactorDelegate()
    // Before Application.main, as on iOS: the handler is what the daemon launches the task into.
    BGTaskScheduler.shared.register(forTaskWithIdentifier: CompactorDelegate.compactTask) { task in
        delegate.handleCompaction(task)
    }
    Application.main(delegate: delegate)
}
