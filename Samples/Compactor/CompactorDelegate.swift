import BackgroundKit
import Foundation
import SampleSupport

/// The app under the daemon: a journal that grows and is pruned each time it is opened, and
/// a processing task that compacts it only on external power, when the device is idle.
///
/// Compaction is the kind of work iOS keeps for `BGProcessingTask`: it can wait for hours, it
/// costs disk and CPU, and it must stop cleanly when the system takes the time back.
@MainActor
final class CompactorDelegate: ApplicationDelegate {
    /// The processing task's identifier (listed in `BGTaskSchedulerPermittedIdentifiers`).
    static let compactTask = "org.backgrounder.samples.compactor.compact"

    private var journal: Journal?
    /// Set by the running task's expiration handler; compaction stops at its next step.
    private var expired = false

    func application(_ application: Application, didFinishLaunchingWith reason: LaunchReason) {
        say("launched (\(reason.rawValue))")
        let directory = Application.dataDirectory(forBundle: Journal.bundleIdentifier)
        do {
            let journal = try Journal(path: directory + "/journal.sqlite")
            self.journal = journal
            say("journal: \(try journal.count()) entries, \(try journal.size())")
        } catch {
            complain("cannot open the journal in \(directory): \(error)")
            exit(74)
        }
        if reason == .user { use() }
    }

    func applicationWillEnterForeground(_ application: Application) {
        use()
    }

    /// A person used the app: entries come and go, free pages pile up, and compaction is
    /// scheduled.
    private func use() {
        guard let journal else { return }
        do {
            let (added, removed) = try journal.churn()
            say("opened: added \(added) entries, removed \(removed); \(try journal.size())")
        } catch {
            say("cannot write the journal: \(error)")
        }
        scheduleCompaction()
    }

    /// Submits the processing task, replacing a pending one.
    private func scheduleCompaction() {
        let request = BGProcessingTaskRequest(identifier: Self.compactTask)
        request.requiresExternalPower = true
        do {
            try BGTaskScheduler.shared.submit(request)
            say("scheduled \(request) (on external power, when idle)")
        } catch {
            say("cannot schedule \(request): \(error)")
        }
    }

    /// The processing task's launch handler: compacts in steps until done or expired, says
    /// the file size before and after, and completes the task.
    func handleCompaction(_ task: BGTask) {
        guard let journal else {
            task.setTaskCompleted(success: false)
            return
        }
        expired = false
        task.expirationHandler = { [weak self] in
            say("compaction: expiring; stopping after this step")
            self?.expired = true
        }
        Task {
            do {
                let before = try journal.size()
                say("compaction: starting, \(before)")
                let outcome = try await Compaction.run(journal) { [weak self] in self?.expired ?? true }
                let after = try journal.size()
                if outcome.finished {
                    say("compacted: \(before.fileBytes) -> \(after.fileBytes) bytes in \(outcome.steps) steps")
                } else {
                    say(
                        "compaction stopped (expired) after \(outcome.steps) steps: \(before.fileBytes) -> "
                            + "\(after.fileBytes) bytes, \(after.freePages) free pages left for next time")
                    // The rest waits for the next time the conditions hold.
                    scheduleCompaction()
                }
                task.setTaskCompleted(success: outcome.finished)
            } catch {
                say("compaction failed: \(error)")
                scheduleCompaction()
                task.setTaskCompleted(success: false)
            }
        }
    }
}
