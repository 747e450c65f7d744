import BackgroundKit
import Foundation
import SampleSupport

// Compactor: a journal in SQLite that a processing task compacts while the device is idle and
// on external power, as an iOS app keeps its database tidy with BGProcessingTaskRequest.
//
// Each time a person opens it, it adds entries and prunes old ones, which leaves free pages in
// journal.sqlite (in its data directory, STATE/data/org.backgrounder.samples.compactor), and
// submits a processing task with requiresExternalPower. When the daemon runs the task, it
// gives the free pages back in small steps, stopping cleanly if the task is expired, and
// prints the file's size before and after.

let identifier = "org.backgrounder.samples.compactor"
let usage = """
    usage: Compactor [--help]
    Compactor keeps a journal in SQLite (journal.sqlite in its data directory); each time it is
    opened it adds entries and prunes old ones, and a processing task that runs while the device
    is idle and on external power gives the free pages back. backgrounderd launches it; a person
    does not:
      bgctl open ID                  launch it: it writes and submits its task
      bgctl tasks ID                 the task and what it waits for
      bgctl simulate task ID TASK    run the task now
    where ID is \(identifier) and TASK \(CompactorDelegate.compactTask).
    example:
      bgctl open \(identifier) && bgctl home && bgctl logs \(identifier)
    """
SampleLaunch.commandOrApp(program: "Compactor", identifier: identifier) {
    SampleLaunch.appOnly($0, program: "Compactor", usage: usage)
}
MainActor.assumeIsolated {
    let delegate = CompactorDelegate()
    // Before Application.main, as on iOS: the handler is what the daemon launches the task into.
    BGTaskScheduler.shared.register(forTaskWithIdentifier: CompactorDelegate.compactTask) { task in
        delegate.handleCompaction(task)
    }
    Application.main(delegate: delegate)
}
